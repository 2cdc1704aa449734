import Foundation
import HTTPCore
import PermissionDomain
import PermissionWire
import Testing

@testable import PermissionAPI

/// Consent links and the `/consent/` entry (SPEC §10), in-process on either store: making a
/// link, the one-time exchange for the cookie, the refusals of reused, expired, forged and
/// ended links, the cookie's flags, the security headers, CSRF, and that a session reaches its
/// own user only and nothing on `/v1`.
@Suite struct ConsentSessionTests {
    /// The security headers of every `/consent/` response.
    static let securityHeaders = [
        ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"),
        ("Referrer-Policy", "no-referrer"), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
    ]

    /// No `Authorization` field: the cookie alone.
    static let noKey = ("Authorization", "")

    /// Makes a link for `user`; returns the response's link.
    static func link(_ app: TestApp, user: String = "u42") throws -> ConsentSessionLink {
        let response = try app.send(.post, "/v1/users/\(user)/consent-sessions")
        guard response.status == 201 else { throw TestFailure("link: \(response.status) \(response.text)") }
        return try response.decode(ConsentSessionLink.self)
    }

    /// Follows `link` like a browser; returns the response and the cookie's `name=value`.
    static func open(_ app: TestApp, _ link: ConsentSessionLink) throws -> (response: TestResponse, cookie: String?) {
        let response = try app.send(.get, link.url, headers: [noKey])
        let cookie = response.headers["Set-Cookie"].map { String($0.prefix { $0 != ";" }) }
        return (response, cookie)
    }

    /// A session's cookie for `user`.
    static func session(_ app: TestApp, user: String = "u42") throws -> String {
        let (response, cookie) = try open(app, try link(app, user: user))
        guard response.status == 200, let cookie else { throw TestFailure("start: \(response.status) \(response.text)") }
        return cookie
    }

    static func expectSecurityHeaders(_ response: TestResponse, _ comment: Comment? = nil) {
        for (name, value) in securityHeaders { #expect(response.headers[name] == value, "\(name) \(comment?.rawValue ?? "")") }
    }

    /// The CSRF token in a page's forms.
    static func csrfToken(in page: String) throws -> String {
        let marker = #"name="csrf" value=""#
        guard let start = page.range(of: marker)?.upperBound else { throw TestFailure("no CSRF field in \(page)") }
        return String(page[start...].prefix { $0 != "\"" })
    }

    @Test func aLinkIsMadeOnceAndAudited() throws {
        let app = try TestApp()
        let response = try app.send(.post, "/v1/users/u42/consent-sessions", json: "{}")
        #expect(response.status == 201)
        let link = try response.decode(ConsentSessionLink.self)
        #expect(ConsentSessionID.isValid(link.id))
        #expect(response.headers["Location"] == "/v1/consent-sessions/\(link.id)")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(link.expiresAt == TestApp.start.addingTimeInterval(900))
        let token = try #require(link.url.split(separator: "=", maxSplits: 1).last)
        #expect(link.url.hasPrefix("/consent/start?token=") && token.count == 43)
        let entry = try #require(try app.audit().last)
        #expect(entry.action == "consent.session.created" && entry.user == "u42")
        #expect(entry.detail?["session"] == link.id && entry.actor.role == "admin")
        let log = try app.send(.get, "/v1/audit").text
        #expect(!log.contains(token), "the token is in no audit entry")

        #expect(try app.send(.post, "/v1/users/u42/consent-sessions", json: #"{"ttl":5}"#).status == 400)
        #expect(try app.send(.post, "/v1/users/bad%20user/consent-sessions").status == 400)
        let appKey = try app.storeKey(role: .app, app: "com.example.maps").secret
        #expect(
            try app.send(.post, "/v1/users/u42/consent-sessions", headers: [("Authorization", "Bearer \(appKey)")]).status == 403)
        let consentKey = try app.storeKey(role: .consent).secret
        #expect(
            try app.send(.post, "/v1/users/u42/consent-sessions", headers: [("Authorization", "Bearer \(consentKey)")]).status
                == 201)
    }

    /// What the 201's `Location` names: the session's state as it moves from unopened to open
    /// to ended, or runs out; never its token. Reading it changes nothing.
    @Test func aSessionsLocationAnswersItsState() throws {
        let app = try TestApp()
        func state(_ id: String, key: String? = nil) throws -> PermissionWire.ConsentSession {
            let headers = key.map { [("Authorization", "Bearer \($0)")] } ?? []
            let response = try app.send(.get, "/v1/consent-sessions/\(id)", headers: headers)
            guard response.status == 200 else { throw TestFailure("\(id): \(response.status) \(response.text)") }
            #expect(response.headers["Cache-Control"] == "no-store")
            #expect(!response.text.contains("token") && !response.text.contains("Hash"), "\(response.text)")
            return try response.decode(PermissionWire.ConsentSession.self)
        }
        let created = try app.send(.post, "/v1/users/u42/consent-sessions")
        let link = try created.decode(ConsentSessionLink.self)
        let location = try #require(created.headers["Location"])
        let seq = try app.lastSeq()
        let fresh = try app.send(.get, location)
        #expect(fresh.status == 200)
        #expect(
            try fresh.decode(PermissionWire.ConsentSession.self)
                == PermissionWire.ConsentSession(
                    id: link.id, user: "u42", state: .unopened, createdAt: TestApp.start, expiresAt: link.expiresAt))
        #expect(!fresh.text.contains("openedAt") && !fresh.text.contains("endedAt"), "absent until they happen")
        let consentKey = try app.storeKey(role: .consent).secret
        #expect(try state(link.id, key: consentKey).state == .unopened)

        app.clock.advance(by: 60)
        _ = try Self.open(app, link)
        let open = try state(link.id)
        #expect(open.state == .open && open.openedAt == TestApp.start.addingTimeInterval(60) && open.endedAt == nil)
        app.clock.advance(by: 60)
        #expect(try app.send(.delete, location).status == 204)
        let ended = try state(link.id)
        #expect(ended.state == .ended && ended.endedAt == TestApp.start.addingTimeInterval(120))
        app.clock.advance(by: 900)
        #expect(try state(link.id).state == .ended, "ended before its time: still ended")

        let unopened = try Self.link(app)
        let opened = try Self.link(app)
        _ = try Self.open(app, opened)
        app.clock.advance(by: 900)
        #expect(try state(unopened.id).state == .expired)
        let lapsed = try state(opened.id)
        #expect(lapsed.state == .expired && lapsed.openedAt != nil)
        #expect(try app.send(.delete, "/v1/consent-sessions/\(opened.id)").status == 204)
        #expect(try state(opened.id).state == .expired, "ended after its time ran out: expired")
        #expect(try app.lastSeq() > seq)
        let afterDeletes = try app.lastSeq()
        _ = try state(unopened.id)
        #expect(try app.lastSeq() == afterDeletes, "a read writes nothing")

        let unknown = try app.send(.get, "/v1/consent-sessions/cs_" + String(repeating: "0", count: 16))
        #expect(unknown.status == 404 && unknown.headers["Content-Type"] == "application/problem+json")
        #expect(try app.send(.get, "/v1/consent-sessions/not%20an%20id").status == 400)
        let appKey = try app.storeKey(role: .app, app: "com.example.maps").secret
        #expect(
            try app.send(.get, location, headers: [("Authorization", "Bearer \(appKey)")]).status == 403)
    }

    /// `--ended-retention` (30 days by default): the sweeper deletes a session that long past
    /// its life, and a prompt that long ended; their reads are 404 then.
    @Test func theSweeperDeletesWhatEndedLongerAgoThanTheRetention() throws {
        let app = try TestApp()
        try app.registerApp()
        let link = try Self.link(app)
        let asked = try app.send(
            .post, "/v1/users/u42/apps/com.example.maps/authorizations/camera/request", json: #"{"level":"full"}"#)
        let prompt = try #require(try asked.decode(RequestOutcome.self).prompt)
        #expect(try app.send(.post, "/v1/prompts/\(prompt.id)/decision", json: #"{"choice":"deny"}"#).status == 200)
        app.clock.advance(by: 31 * 86_400)
        #expect(try app.send(.get, "/v1/consent-sessions/\(link.id)").status == 200)
        #expect(try app.send(.get, "/v1/prompts/\(prompt.id)").status == 200)
        let seq = try app.lastSeq()
        app.application.sweepNow()  // a sweeper's first tick purges (then once a minute)
        #expect(try app.send(.get, "/v1/consent-sessions/\(link.id)").status == 404)
        #expect(try app.send(.get, "/v1/prompts/\(prompt.id)").status == 404)
        #expect(try app.lastSeq() == seq, "no audit entry")
        #expect(try app.audit().contains { $0.action == "prompt.answered" || $0.action == "prompt.decided" })
    }

    @Test func theLinkBaseIsThePublicURL() throws {
        let app = try TestApp { $0.publicURL = "https://permissions.example.com" }
        #expect(try Self.link(app).url.hasPrefix("https://permissions.example.com/consent/start?token="))
    }

    /// The link's page goes on to `/consent/` by itself, not by a 303: a redirect would keep the
    /// navigation cross-site when the link was clicked on another site (a mail, the
    /// integrator's page), and the browser would send the SameSite=Strict cookie with neither.
    @Test func theFirstVisitSetsTheCookieAndGoesOnWithoutTheToken() throws {
        let app = try TestApp()
        let link = try Self.link(app)
        app.clock.advance(by: 100)
        let head = try app.send(.head, link.url, headers: [Self.noKey])
        #expect(head.status == 200 && head.headers["Set-Cookie"] == nil, "a HEAD does not use up the link")
        Self.expectSecurityHeaders(head)
        let (response, cookie) = try Self.open(app, link)
        #expect(response.status == 200 && response.headers["Location"] == nil)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.text.contains(#"<meta http-equiv="refresh" content="0; url=/consent/">"#))
        #expect(response.text.contains(#"<a id="open" href="/consent/">Open My Privacy Choices</a>"#))
        #expect(!response.text.contains("token"), "the page does not repeat the token")
        let setCookie = try #require(response.headers["Set-Cookie"])
        let value = try #require(cookie?.dropFirst("__Host-permission_consent=".count))
        #expect(cookie?.hasPrefix("__Host-permission_consent=") == true && value.count == 43)
        #expect(setCookie == "__Host-permission_consent=\(value); Path=/; Max-Age=800; HttpOnly; SameSite=Strict; Secure")
        // Copies under the names servers of earlier versions read, for a rolling update.
        #expect(
            response.headers.values(for: "Set-Cookie") == [
                setCookie, "__Secure-permission_consent=\(value); Path=/consent; Max-Age=800; HttpOnly; SameSite=Strict; Secure",
                "permission_consent=\(value); Path=/consent; Max-Age=800; HttpOnly; SameSite=Strict; Secure",
            ])
        Self.expectSecurityHeaders(response)
        #expect(!link.url.contains(String(value)), "the cookie is not the token")

        let home = try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", "theme=dark; \(cookie!)")])
        #expect(home.status == 200)
        #expect(home.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(home.text.hasPrefix("<!DOCTYPE html>") && home.text.contains("u42"))
        #expect(
            home.text.components(separatedBy: "<script").count == 2
                && home.text.contains(#"<script src="/consent/static/app.js" defer=""></script>"#),
            "one script, from its file: no inline script")
        #expect(!home.text.contains("<style") && !home.text.contains("style="), "no inline style")
        Self.expectSecurityHeaders(home)
    }

    /// The router decodes a path's segments before it matches, so `/%63onsent/start` and
    /// `/c%6Fnsent/start` are the start page: they get the pages' security headers as
    /// `/consent/start` does, and a miss there is a page.
    @Test(arguments: ["%63onsent", "c%6Fnsent", "consen%74", "%63%6F%6E%73%65%6E%74"])
    func aConsentPageReachedThroughAnEncodedPathHasTheSecurityHeaders(segment: String) throws {
        let app = try TestApp()
        let link = try Self.link(app)
        let encoded = link.url.replacingOccurrences(of: "/consent/", with: "/\(segment)/")
        #expect(encoded != link.url)
        let head = try app.send(.head, encoded, headers: [Self.noKey])
        #expect(head.status == 200, "\(head.status)")
        Self.expectSecurityHeaders(head)
        let missing = try app.send(.get, "/\(segment)/nothing-here", headers: [Self.noKey])
        #expect(missing.status == 404 && missing.headers["Content-Type"] == "text/html; charset=utf-8")
        Self.expectSecurityHeaders(missing)
        let bare = try app.send(.get, "/\(segment)", headers: [Self.noKey])
        #expect(bare.status == 303 && bare.headers["Location"] == "/consent/")
        Self.expectSecurityHeaders(bare)
    }

    /// Paths that only look like the pages' are not theirs: an encoded "/" keeps its segment
    /// whole, and another first segment is another route.
    @Test func onlyAFirstSegmentDecodingToConsentIsAConsentPath() {
        #expect(ConsentSecurityHeaders.covers("/consent"))
        #expect(ConsentSecurityHeaders.covers("/consent/"))
        #expect(ConsentSecurityHeaders.covers("/consent/%zz"))
        #expect(ConsentSecurityHeaders.covers("/C%6fnsent/start") == false)
        #expect(ConsentSecurityHeaders.covers("/consent%2Fstart") == false)
        #expect(ConsentSecurityHeaders.covers("/consents/start") == false)
        #expect(ConsentSecurityHeaders.covers("/v1/consent/start") == false)
        #expect(ConsentSecurityHeaders.covers("/c%zznsent/start") == false)
        #expect(ConsentSecurityHeaders.covers("consent/start") == false)
        #expect(ConsentSecurityHeaders.covers("/") == false)
    }

    @Test func theCookieIsNotSecureWhenConfiguredForPlainHTTP() throws {
        let app = try TestApp { $0.consentCookieSecure = false }
        let (response, cookie) = try Self.open(app, try Self.link(app))
        let setCookie = try #require(response.headers["Set-Cookie"])
        #expect(setCookie.hasPrefix("permission_consent=") && setCookie.hasSuffix("; Max-Age=900; HttpOnly; SameSite=Strict"))
        #expect(!setCookie.contains("Secure"), "browsers refuse the prefixes without Secure")
        #expect(response.headers.values(for: "Set-Cookie").count == 1, "no copy: the cookie has the plain name")
        #expect(try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", try #require(cookie))]).status == 200)
    }

    /// Every page of a session says when it ends and offers "Stay Signed In" (WCAG 2.2.1): the
    /// form moves the end to a TTL from now, audited by the session, sets the same cookie again
    /// until the new end and goes back to the page it was on; the session outlives its first
    /// end; up to twelve TTLs after the link was made, then it says so and changes nothing; a
    /// form without the CSRF token changes nothing.
    @Test func staySignedInMovesTheSessionsEndAndTheCookie() throws {
        let app = try TestApp()
        let browser = try ConsentBrowser(app)
        let created = try #require(try app.audit().last { $0.action == "consent.session.created" })
        let firstEnd = Date(timeIntervalSince1970: Double(try #require(Int64(created.detail?["expiresAt"] ?? ""))) / 1000)
        let page = try browser.get("/consent/settings").text
        #expect(
            page.contains(
                #"<footer id="session"><p>This session ends at <time id="session-end" datetime="\#(ConsentPage.machineTime(firstEnd))" data-left-ms="900000" data-session="\#(created.detail?["session"] ?? "")">\#(ConsentPage.readableTime(firstEnd))</time>.</p><form class="extend" method="post" action="/consent/session/extend">"#
            ), "the end in the footer")
        let back = #"<input type="hidden" name="back" value="/consent/settings"><button type="submit">Stay Signed In</button>"#
        #expect(page.contains(back))
        #expect(page.contains(#"<p id="session-warning-text" role="alert" data-lead-ms="120000""#), "an empty alert region")
        #expect(page.contains(#"<div id="session-warning-actions" hidden="">"#))

        app.clock.advance(by: 600)
        let seq = try app.lastSeq()
        let refused = try browser.post("/consent/session/extend", [("back", "/consent/settings")], csrf: false)
        #expect(refused.status == 403 && refused.headers["Set-Cookie"] == nil)
        #expect(try app.lastSeq() == seq, "nothing changed without the token")

        let extended = try browser.post("/consent/session/extend", [("back", "/consent/settings")])
        #expect(extended.status == 303 && extended.headers["Location"] == "/consent/settings?done=extended")
        #expect(
            extended.headers["Set-Cookie"]
                == "\(browser.cookie); Path=/; Max-Age=900; HttpOnly; SameSite=Strict; Secure",
            "the same secret until the new end")
        Self.expectSecurityHeaders(extended)
        let entry = try #require(try app.audit().last)
        let newEnd = app.clock.now.addingTimeInterval(900)
        #expect(entry.action == "consent.session.extended" && entry.user == "u42" && entry.actor.role == "user")
        #expect(entry.detail?["expiresAt"] == String(Int64(newEnd.timeIntervalSince1970 * 1000)))
        #expect(entry.detail?["session"] == created.detail?["session"])
        let soon = try browser.post("/consent/session/extend", [("back", "/consent/settings")])
        #expect(soon.headers["Location"] == "/consent/settings?done=extendNotYet" && soon.headers["Set-Cookie"] == nil)
        #expect(try app.lastSeq() == seq + 1, "pressed again at once: nothing written, nothing audited")
        let after = try browser.get("/consent/settings?done=extended").text
        #expect(after.contains("You stay signed in longer."))
        #expect(after.contains(#"datetime="\#(ConsentPage.machineTime(newEnd))""#))

        app.clock.advance(by: 400)  // past the first end
        #expect(try browser.get("/consent/").status == 200, "it outlives its first end")
        let elsewhere = try browser.post("/consent/session/extend", [("back", "https://example.com/")])
        #expect(elsewhere.headers["Location"] == "/consent/?done=extended", "back to a page of its own only")

        // Up to twelve TTLs after the link was made; then the history page says it cannot last longer.
        var answers: [TestResponse] = []
        var end = app.clock.now.addingTimeInterval(900)
        for _ in 0..<20 {
            app.clock.set(min(app.clock.now.addingTimeInterval(840), end.addingTimeInterval(-1)))  // before the end
            let answer = try browser.post("/consent/session/extend", [("back", "/consent/history")])
            answers.append(answer)
            if answer.headers["Location"]?.hasSuffix("extendLimit") == true { break }
            let maxAge = try #require(answer.headers["Set-Cookie"]?.firstMatch(of: /Max-Age=(\d+)/)?.1)
            end = app.clock.now.addingTimeInterval(try #require(TimeInterval(String(maxAge))))
        }
        let last = try #require(answers.last)
        #expect(last.status == 303 && last.headers["Location"] == "/consent/history?done=extendLimit")
        #expect(last.headers["Set-Cookie"] == nil, "nothing to set again")
        #expect(answers.count >= 9, "\(answers.count) more extensions before the limit")
        let history = try browser.get("/consent/history?done=extendLimit").text
        #expect(history.contains("This session cannot last any longer. When it ends, ask the app for a new link."))
        #expect(history.contains("A session of these pages was extended"))
        let limit = try #require(try app.audit().last { $0.action == "consent.session.extended" })
        let twelveTTLs = TestApp.start.addingTimeInterval(900 * 12)
        #expect(limit.detail?["expiresAt"] == String(Int64(twelveTTLs.timeIntervalSince1970 * 1000)))
    }

    /// A `Secure` cookie is read by its `__Host-` name: a cookie planted under the plain name (a
    /// plain-HTTP page, a network attacker) opens nothing, even holding a live session's
    /// secret; one planted under the `__Secure-` name (which a sibling subdomain may set, with
    /// a longer path that browsers send first) does not shadow the real one. The `__Secure-`
    /// name alone, as a replica of the previous version set it, still opens its session.
    @Test func aSecureCookieIsReadByItsHostPrefixedName() throws {
        let app = try TestApp()
        let (_, cookie) = try Self.open(app, try Self.link(app))
        let pair = try #require(cookie)
        let secret = try #require(pair.split(separator: "=", maxSplits: 1).last)
        let plain = try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", "permission_consent=\(secret)")])
        #expect(plain.status == 401, "the plain name is not read when the cookie is Secure")
        let (_, other) = try Self.open(app, try Self.link(app, user: "mallory"))
        let otherSecret = try #require(other?.split(separator: "=", maxSplits: 1).last)
        for planted in ["permission_consent", "__Secure-permission_consent"] {
            let both = try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", "\(planted)=\(otherSecret); \(pair)")])
            #expect(both.status == 200 && both.text.contains("u42") && !both.text.contains("mallory"), "\(planted) ignored")
        }
        let previous = try app.send(
            .get, "/consent/", headers: [Self.noKey, ("Cookie", "__Secure-permission_consent=\(secret)")])
        #expect(previous.status == 200 && previous.text.contains("u42"), "a session an earlier replica opened")
    }

    /// Anyone may send a link's token: one that opens nothing is told by a read, and takes no
    /// place in the write queue every change waits in. The one that opens a session writes.
    @Test func aTokenThatOpensNothingWritesNothing() throws {
        let (app, store) = try TestApp.serving(through: CountingStore.init)
        let used = try Self.link(app)
        _ = try Self.open(app, used)
        let writes = store.writes.withLock { $0 }
        for index in 0..<20 {
            let token = String(repeating: "A", count: 42) + (index.isMultiple(of: 2) ? "B" : "C")
            let forged = try app.send(.get, "/consent/start?token=" + token, headers: [Self.noKey])
            #expect(forged.status == 400 && forged.headers["Set-Cookie"] == nil)
            #expect(try app.send(.get, used.url, headers: [Self.noKey]).status == 410)
        }
        #expect(store.writes.withLock { $0 } == writes, "a token that opens nothing wrote")
        _ = try Self.open(app, try Self.link(app))
        #expect(store.writes.withLock { $0 } > writes + 1, "the link made and opened")
    }

    @Test func reusedForgedMissingExpiredAndEndedLinksGetAPageAndNoCookie() throws {
        let app = try TestApp()
        let used = try Self.link(app)
        _ = try Self.open(app, used)
        let ended = try Self.link(app)
        #expect(try app.send(.delete, "/v1/consent-sessions/\(ended.id)").status == 204)
        let expired = try Self.link(app)
        let cases: [(String, Int, String)] = [
            (used.url, 410, "already used"),
            ("/consent/start?token=" + String(repeating: "A", count: 43), 400, "not valid"),
            ("/consent/start", 400, "not complete"),
            ("/consent/start?token=short", 400, "not complete"),
            ("/consent/start?token=%3Cscript%3E", 400, "not complete"),
            (ended.url, 410, "withdrawn"),
        ]
        for (target, status, words) in cases {
            let response = try app.send(.get, target, headers: [Self.noKey])
            #expect(response.status == status, "\(target)")
            #expect(response.headers["Set-Cookie"] == nil, "\(target)")
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(response.text.contains(words), "\(target): \(response.text)")
            #expect(response.text.contains("Ask the app or service that sent you the link for a new one."))
            Self.expectSecurityHeaders(response, "\(target)")
        }
        // A link opened again (the mail's link clicked twice) leads on to the pages, where the
        // session it opened is still live in the browser that opened it.
        let again = try app.send(.get, used.url, headers: [Self.noKey])
        #expect(again.text.contains(#"<a id="open" href="/consent/">Open My Privacy Choices</a>"#))
        app.clock.advance(by: 900)
        let late = try app.send(.get, expired.url, headers: [Self.noKey])
        #expect(late.status == 410 && late.text.contains("expired") && late.headers["Set-Cookie"] == nil)
    }

    @Test func withoutALiveSessionTheHomePageSaysTheLinkExpired() throws {
        let app = try TestApp()
        let cookie = try Self.session(app)
        let other = try Self.session(app, user: "u43")
        for cookieField in ["", "permission_consent=", "permission_consent=" + String(repeating: "A", count: 43), "other=1"] {
            let response = try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", cookieField)])
            #expect(response.status == 401, "\(cookieField)")
            #expect(response.text.contains("This link has expired"))
            #expect(response.text.contains("Ask the app or service that sent you the link for a new one."))
            Self.expectSecurityHeaders(response)
        }
        // Ended by an operator: the cookie stops working at once.
        let id = try #require(
            try app.audit().filter { $0.action == "consent.session.created" && $0.user == "u43" }.last?.detail?["session"])
        #expect(try app.send(.delete, "/v1/consent-sessions/\(id)").status == 204)
        #expect(try app.send(.delete, "/v1/consent-sessions/\(id)").status == 204, "ending twice is fine")
        #expect(try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", other)]).status == 401)
        #expect(
            try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", cookie)]).status == 200, "the other session lives")
        // Expired: the lifetime counts from the link's making.
        app.clock.advance(by: 900)
        #expect(try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", cookie)]).status == 401)

        #expect(try app.send(.delete, "/v1/consent-sessions/cs_00000000000000ff").status == 404)
        #expect(try app.send(.delete, "/v1/consent-sessions/nope").status == 400)
        let ended = try app.audit("action=consent.session.ended")
        #expect(ended.count == 1 && ended.first?.user == "u43" && ended.first?.detail?["session"] == id)
    }

    @Test func everyConsentResponseHasTheSecurityHeaders() throws {
        let app = try TestApp()
        for target in ["/consent/nothing-here", "/consent/", "/consent/start", "/consent"] {
            Self.expectSecurityHeaders(try app.send(.get, target, headers: [Self.noKey]), "\(target)")
        }
        Self.expectSecurityHeaders(try app.send(.put, "/consent/", headers: [Self.noKey]), "405")
        #expect(try app.send(.get, "/healthz").headers["Content-Security-Policy"] == nil, "only under /consent/")
    }

    /// What no page answers under `/consent` is a page too, in the request's language, never
    /// the API's problem+json: a path no page has (404), a method its page does not answer
    /// (405, `Allow` kept), a path that cannot be decoded (400); `/consent` itself leads to
    /// `/consent/`. The API's misses stay problems.
    @Test func pathsAndMethodsNoPageAnswersArePagesInTheRequestsLanguage() throws {
        let app = try TestApp()
        let cookie = try Self.session(app)
        let cases: [(HTTPMethod, String, Int, (en: String, de: String))] = [
            (.get, "/consent/nix", 404, ("Not found", "Nicht gefunden")),
            (.get, "/consent/settings/", 404, ("Not found", "Nicht gefunden")),
            (.get, "/consent/static/nothing.css", 404, ("Not found", "Nicht gefunden")),
            (.head, "/consent/nix", 404, ("", "")),
            (.post, "/consent/settings", 405, ("This page cannot be used this way", "Diese Seite lässt sich so nicht verwenden")),
            (.get, "/consent/logout", 405, ("This page cannot be used this way", "Diese Seite lässt sich so nicht verwenden")),
            (.delete, "/consent/", 405, ("This page cannot be used this way", "Diese Seite lässt sich so nicht verwenden")),
            (.get, "/consent/%zz", 400, ("This address is not valid", "Diese Adresse ist ungültig")),
            (
                HTTPMethod("FOO"), "/consent/", 501,
                ("Your browser&#39;s request could not be taken", "Die Anfrage deines Browsers konnte nicht angenommen werden")
            ),
        ]
        for (method, target, status, title) in cases {
            for (language, german) in [("de-CH, en;q=0.5", true), ("", false)] {
                for withCookie in [true, false] {
                    var headers = [Self.noKey, ("Accept-Language", language)]
                    if withCookie { headers.append(("Cookie", cookie)) }
                    let response = try app.send(method, target, headers: headers)
                    let label = "\(method) \(target) \(language) \(withCookie)"
                    #expect(response.status == status, "\(label)")
                    #expect(response.headers["Content-Type"] == "text/html; charset=utf-8", "\(label)")
                    Self.expectSecurityHeaders(response, "\(label)")
                    if method == .head { continue }  // the engine sends no body
                    #expect(response.text.contains(#"<html lang="\#(german ? "de" : "en")">"#), "\(label)")
                    #expect(response.text.contains("<h1>\(german ? title.de : title.en)</h1>"), "\(label)")
                    if status == 405 {
                        let allow = response.headers["Allow"] ?? ""
                        #expect(!allow.isEmpty && !allow.contains(method.rawValue), "\(label): Allow \(allow)")
                    }
                }
            }
        }
        #expect(try app.send(.post, "/consent/settings", headers: [Self.noKey]).headers["Allow"] == "GET, HEAD, OPTIONS")
        for method in [HTTPMethod.get, .head] {
            let bare = try app.send(method, "/consent", headers: [Self.noKey, ("Accept-Language", "de")])
            #expect(bare.status == 303 && bare.headers["Location"] == "/consent/", "\(method) /consent")
            Self.expectSecurityHeaders(bare, "/consent")
        }
        let wrong = try app.send(.post, "/consent", headers: [Self.noKey, ("Accept-Language", "de")])
        #expect(wrong.status == 405 && wrong.text.contains("<html lang=\"de\">"))
        let api = try app.send(.get, "/v1/nix", headers: [("Accept-Language", "de")])
        #expect(api.status == 404 && api.headers["Content-Type"] == "application/problem+json")
        let method = try app.send(.post, "/healthz", headers: [("Accept-Language", "de")])
        #expect(method.status == 405 && method.headers["Content-Type"] == "application/problem+json")
        #expect(try app.send(.get, "/consentx", headers: [Self.noKey]).headers["Content-Type"] == "application/problem+json")
    }

    @Test func logoutNeedsTheSessionsCSRFTokenAndEndsTheSession() throws {
        let app = try TestApp()
        let cookie = try Self.session(app)
        let otherCookie = try Self.session(app, user: "u43")
        let home = try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", cookie)])
        let token = try Self.csrfToken(in: home.text)
        let otherToken = try Self.csrfToken(
            in: try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", otherCookie)]).text)
        #expect(token.count == 43 && token != otherToken)
        let form = ("Content-Type", "application/x-www-form-urlencoded")
        let seq = try app.lastSeq()
        let refused: [(String, [(String, String)], Int)] = [
            ("", [form], 403),
            ("csrf=", [form], 403),
            ("csrf=" + otherToken, [form], 403),
            ("csrf=" + String(repeating: "A", count: 43), [form], 403),
            ("csrf=\(token)&csrf=\(token)", [form], 403),
            ("csrf=" + token, [("Content-Type", "application/json")], 415),
            ("csrf=" + token + "&" + String(repeating: "x", count: 20_000), [form], 413),
            ("csrf=%ZZ", [form], 400),
        ]
        for (body, headers, status) in refused {
            let response = try app.send(
                .post, "/consent/logout", body: Array(body.utf8), headers: [Self.noKey, ("Cookie", cookie)] + headers)
            #expect(response.status == status, "\(body.prefix(60))")
            #expect(response.text.contains("Nothing was changed"))
            Self.expectSecurityHeaders(response)
        }
        #expect(try app.lastSeq() == seq, "nothing was written")
        #expect(try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", cookie)]).status == 200)
        let noSession = try app.send(.post, "/consent/logout", body: Array("csrf=\(token)".utf8), headers: [Self.noKey, form])
        #expect(noSession.status == 401)

        let out = try app.send(
            .post, "/consent/logout", body: Array("csrf=\(token)".utf8), headers: [Self.noKey, ("Cookie", cookie), form])
        #expect(out.status == 303 && out.headers["Location"] == "/consent/signed-out", "a reload must not post again")
        #expect(
            out.headers.values(for: "Set-Cookie") == [
                "__Host-permission_consent=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure",
                "__Secure-permission_consent=; Path=/consent; Max-Age=0; HttpOnly; SameSite=Strict; Secure",
                "permission_consent=; Path=/consent; Max-Age=0; HttpOnly; SameSite=Strict; Secure",
            ])
        Self.expectSecurityHeaders(out)
        for (accept, text) in [("en", "You are signed out"), ("de", "Du bist abgemeldet")] {
            let page = try app.send(.get, "/consent/signed-out", headers: [Self.noKey, ("Accept-Language", accept)])
            #expect(page.status == 200 && page.text.contains(text) && page.headers["Set-Cookie"] == nil, "\(accept)")
            #expect(!page.text.contains("form id=\"logout\""), "no session, no sign-out form")
            Self.expectSecurityHeaders(page)
        }
        #expect(try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", cookie)]).status == 401)
        #expect(try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", otherCookie)]).status == 200)
        let entry = try #require(try app.audit().last)
        #expect(entry.action == "consent.session.ended" && entry.user == "u42" && entry.actor.role == "user")
        #expect(entry.actor.keyId.map(ConsentSessionID.isValid) == true)
    }

    /// Cell by cell: a session sees its own user's prompts, and another user's prompt is not
    /// found; the text shown is escaped.
    @Test func aSessionReachesOnlyItsOwnUser() throws {
        let app = try TestApp()
        var purposes = TestApp.allPurposes
        purposes["NSCameraUsageDescription"] = "<script>alert('x')</script> & \"more\""
        try app.registerApp("com.example.maps", purposes)
        let own = try app.prompt("camera", "full", user: "u42")
        let foreign = try app.prompt("camera", "full", user: "u43")
        let cookie = try Self.session(app)
        let home = try app.send(.get, "/consent/", headers: [Self.noKey, ("Cookie", cookie)])
        #expect(home.text.contains("/consent/prompts/\(own.id)") && !home.text.contains(foreign.id))

        let mine = try app.send(.get, "/consent/prompts/\(own.id)", headers: [Self.noKey, ("Cookie", cookie)])
        #expect(mine.status == 200)
        #expect(mine.text.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;"))
        #expect(!mine.text.contains("<script>"))
        for id in [foreign.id, "p-unknown", "%3Cb%3E"] {
            let response = try app.send(.get, "/consent/prompts/\(id)", headers: [Self.noKey, ("Cookie", cookie)])
            #expect(response.status == 404, "\(id)")
            #expect(!response.text.contains("Purpose"), "nothing of the prompt is shown")
            Self.expectSecurityHeaders(response)
        }
        #expect(try app.send(.get, "/consent/prompts/\(own.id)", headers: [Self.noKey]).status == 401)
    }

    /// Every right a session holds is bound to its user: a route's `{user}` of another user is
    /// refused (403), its own passes; the rights it lacks are refused whatever the path.
    @Test(arguments: AccessRight.allCases) func aSessionsRightsAreBoundToItsUser(_ right: AccessRight) throws {
        let session = try ConsentSession(
            id: ConsentSessionID("cs_0123456789abcdef"), user: UserID("u42"), tokenHash: Array(repeating: 1, count: 32),
            secretHash: Array(repeating: 2, count: 32), csrfHash: Array(repeating: 3, count: 32),
            createdAt: TestApp.start, expiresAt: TestApp.start.addingTimeInterval(900), exchangedAt: TestApp.start)
        let principal = Principal(session: session)
        func context(_ user: String?) -> RequestContext {
            var context = RequestContext(requestId: "r", logger: quietLogger, remoteAddress: "127.0.0.1:1")
            if let user { context.parameters = ["user": user] }
            return context
        }
        switch AccessMatrix.grant(.user, right) {
        case .granted:
            #expect(right == .open)
        case .ownUser:
            #expect(throws: Never.self) { try AccessControl.authorize(principal, for: right, context: context("u42")) }
            #expect(throws: Never.self) { try AccessControl.authorize(principal, for: right, context: context(nil)) }
            let error = #expect(throws: APIProblem.self) {
                try AccessControl.authorize(principal, for: right, context: context("u43"))
            }
            #expect(error?.type == .forbidden)
            // A key's principal holding no bound user cannot use an own-user grant.
            let unbound = Principal(actor: session.actor, role: .user)
            #expect(throws: APIProblem.self) { try AccessControl.authorize(unbound, for: right, context: context(nil)) }
        case .denied, .ownApp:
            for user in ["u42", "u43"] {
                #expect(throws: APIProblem.self) { try AccessControl.authorize(principal, for: right, context: context(user)) }
            }
        }
    }

    /// The cookie is no credential on `/v1`: every operation answers 401 with it alone.
    @Test func theSessionCookieOpensNothingOnV1() throws {
        let app = try TestApp()
        let cookie = try Self.session(app)
        let samples = ["{user}": "u42", "{app}": "com.example.maps", "{service}": "camera", "{id}": "x1"]
        var checked = 0
        for (method, template) in try RouteTableTests.operations() where template.hasPrefix("/v1/") {
            var target = template
            for (name, value) in samples { target = target.replacingOccurrences(of: name, with: value) }
            let response = try app.send(
                HTTPMethod(method), target, json: method == "GET" || method == "DELETE" ? nil : "{}",
                headers: [Self.noKey, ("Cookie", cookie)])
            #expect(response.status == 401, "\(method) \(template): \(response.status)")
            checked += 1
        }
        #expect(checked >= 30)
    }

    @Test func userIsNoKeyRole() throws {
        let app = try TestApp()
        let before = try app.send(.get, "/v1/keys").text
        let response = try app.send(.post, "/v1/keys", json: #"{"role":"user","name":"browser"}"#)
        #expect(response.status == 422)
        #expect(response.problemType == .invalidCombination)
        #expect(response.problem?.detail.contains("consent session") == true)
        #expect(try app.send(.get, "/v1/keys").text == before, "no key was made")
        #expect(try app.send(.post, "/v1/keys", json: #"{"role":"nobody"}"#).status == 400, "other unknown roles stay 400")
        #expect(throws: PermissionError.self) { try app.storeKey(role: .user) }
    }
}
