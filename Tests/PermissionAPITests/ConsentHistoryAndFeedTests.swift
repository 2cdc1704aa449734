import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// The history page, the prompts fragment, `/consent/events` and the static files
/// (SPEC §10), on either store: a session sees its own user's entries and prompts only.
@Suite(.serialized) struct ConsentHistoryAndFeedTests {
    @Test func theHistoryListsOnlyTheUsersEntriesNewestFirstAndPages() throws {
        let app = try TestApp()
        try app.registerApp()
        for index in 0..<15 {
            try app.set("camera", index % 2 == 0 ? #"{"status":"denied"}"# : #"{"status":"authorized","level":"full"}"#)
            try app.set("camera", #"{"status":"denied"}"#, user: "u43")
            try app.set("microphone", index % 2 == 0 ? #"{"status":"denied"}"# : #"{"status":"authorized","level":"full"}"#)
        }
        let browser = try ConsentBrowser(app)
        let own = try app.audit("user=u42&limit=1000").map(\.seq).reversed().map { $0 }
        #expect(own.count == 31, "30 changes and the consent link")
        var seen: [Int64] = []
        var target: String? = "/consent/history"
        var pages = 0
        while let next = target {
            let page = try browser.get(next)
            #expect(page.status == 200)
            let seqs = page.text.matches(of: #/<li data-seq="(\d+)">/#).compactMap { Int64($0.1) }
            #expect(seqs.count <= 20 && !seqs.isEmpty)
            seen += seqs
            pages += 1
            target = page.text.firstMatch(of: #/<a id="history-older" href="([^"]+)">/#).map { Markup.unescape(String($0.1)) }
            #expect(pages <= 3)
            if pages > 3 { break }
        }
        #expect(pages == 2)
        #expect(seen == own, "every own entry once, newest first")
        let first = try browser.get("/consent/history").text
        #expect(first.contains(#"<ol id="history">"#) && first.contains("Changed in Settings") && first.contains("Camera"))
        #expect(first.contains("Result: Not allowed") || first.contains("Result: Allowed: Full Access"))
        let german = try ConsentBrowser(app, acceptLanguage: "de").get("/consent/history").text
        #expect(german.contains("In den Einstellungen geändert") && german.contains("Kamera"))
        #expect(try browser.get("/consent/history?after=abc").status == 404)
    }

    /// "Allow While Using App" on an Always request grants a provisional Always, which Settings
    /// shows as While Using the App, as iOS does: the history says the same, in both languages.
    @Test func theHistorySaysWhileUsingForAProvisionalAlways() throws {
        let app = try TestApp()
        try app.registerApp()
        let prompt = try app.prompt("location", "always")
        let browser = try ConsentBrowser(app)
        #expect(try browser.decide(prompt.id, "allowWhileUsing").status == 303)
        let authorization = try app.authorization("location")
        #expect(authorization.level == "always" && authorization.provisional)
        let settings = try Markup.radios(
            service: "location", app: "com.example.maps", in: try browser.get("/consent/settings").text)
        #expect(settings.filter(\.checked).map(\.value) == ["whileUsing"])
        let english = try browser.get("/consent/history").text
        #expect(english.contains("Result: Allowed: While Using the App"))
        #expect(!english.contains("Always"), "nothing on the page says Always")
        let german = try ConsentBrowser(app, acceptLanguage: "de").get("/consent/history").text
        #expect(german.contains("Ergebnis: Erlaubt: Beim Verwenden der App"))
        #expect(!german.contains("Immer"))
    }

    @Test func theFragmentShowsTheUsersPendingPromptsOnly() throws {
        let app = try TestApp()
        try app.registerApp()
        let browser = try ConsentBrowser(app)
        let empty = try browser.get("/consent/prompts-fragment")
        #expect(empty.status == 200 && empty.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(empty.text.hasPrefix(#"<p id="no-prompts">"#))
        ConsentSessionTests.expectSecurityHeaders(empty)
        let foreign = try app.prompt("camera", "full", user: "u43")
        let first = try app.prompt("camera", "full")
        app.clock.advance(by: 1)
        let second = try app.prompt("microphone", "full")
        let fragment = try browser.get("/consent/prompts-fragment").text
        #expect(fragment.hasPrefix(#"<div class="alert""#) && !fragment.contains("<html"))
        #expect(!fragment.contains(foreign.id))
        let order = fragment.matches(of: #/data-prompt-id="([^"]+)"/#).map { String($0.1) }
        #expect(order == [first.id, second.id], "newest last")
        let seq = try app.lastSeq()
        let page = try browser.get("/consent/").text
        let section = try #require(
            page.firstMatch(
                of: #/<section id="prompts" tabindex="-1" data-session="([^"]+)" data-after="(\d+)">/#))
        #expect(page.contains(section.0 + fragment + "</section>"), "the section's inside")
        // The position the page was made at, read before its prompts: its stream starts there.
        #expect(section.2 == "\(seq)")
        // The session it was made for: the fragment of another (a link opened since in another
        // tab replaced the cookie) is refused, and the page's script loads the page again.
        let session = String(section.1)
        #expect(try browser.get("/consent/prompts-fragment?session=\(session)").text == fragment)
        let other = try browser.get("/consent/prompts-fragment?session=cs_other")
        #expect(other.status == 409 && other.body.isEmpty)
        #expect(try app.send(.get, "/consent/prompts-fragment", headers: [ConsentSessionTests.noKey]).status == 401)
    }

    /// Reads `client` until the server closes the connection; fails after `limit`.
    static func readToEnd(_ client: EventStreamTests.StreamClient, limit: Duration = .seconds(10)) throws -> String {
        let clock = ContinuousClock()
        let started = clock.now
        var text = client.text
        while clock.now - started < limit {
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let count = try chunk.withUnsafeMutableBytes { raw -> Int? in
                guard let base = raw.baseAddress else { return 0 }
                return try client.socket.read(into: base, count: raw.count)
            }
            guard let count else { continue }  // a read timed out: the stream is still open
            if count == 0 { return text }
            text += String(decoding: chunk[0..<count], as: UTF8.self)
        }
        throw TestFailure("the stream did not end: \(text)")
    }

    @Test func theEventStreamDeliversTheUsersPromptsAndEndsWithTheSession() throws {
        let live = try EventStreamTests.Live()
        defer { live.stop() }
        let app = live.app
        try app.registerApp()
        let link = try ConsentSessionTests.link(app)
        let (_, cookie) = try ConsentSessionTests.open(app, link)
        let request = "GET /consent/events HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\nCookie: \(cookie ?? "")\r\n\r\n"
        let client = try EventStreamTests.StreamClient(port: live.server.localPort, request: request)
        try client.read(until: ": connected\n\n")
        #expect(client.text.hasPrefix("HTTP/1.1 200"))
        #expect(client.text.contains("Content-Type: text/event-stream"))
        #expect(client.text.contains("Content-Security-Policy: default-src 'self'"))
        let foreign = try app.prompt("camera", "full", user: "u43")
        try app.set("microphone", #"{"status":"denied"}"#)  // the user's, but no prompt
        let own = try app.prompt("camera", "full")
        let created = try app.lastSeq()
        try client.read(until: "id: \(created)\n", limit: .seconds(5))
        try client.read(until: "\n\n", limit: .seconds(5))
        #expect(client.text.contains("id: \(created)\nevent: prompt.created\ndata: {\"seq\":\(created)}\n\n"))
        // The page re-reads its fragment on an event: the browser is sent no audit entry (the
        // actors' key ids, the chain's hashes, the request ids).
        for field in ["actor", "keyId", "hash", "requestId", own.id] {
            #expect(!client.text.contains(field), "\(field) is sent to the browser")
        }
        #expect(!client.text.contains(foreign.id), "another user's prompt is not sent")
        #expect(!client.text.contains("authorization.set"), "only prompt changes")
        #expect(try app.send(.delete, "/v1/consent-sessions/\(link.id)").status == 204)
        let rest = try Self.readToEnd(client)
        #expect(!rest.contains(foreign.id))
        try client.close()
        #expect(
            try app.send(.get, "/consent/events", headers: [ConsentSessionTests.noKey, ("Cookie", cookie ?? "")]).status == 401)
    }

    /// A stream reads its session's end again: after "Stay Signed In" it outlives the end the
    /// session had when it opened, and ends at the new one.
    @Test func theEventStreamOfAnExtendedSessionLastsUntilItsNewEnd() throws {
        let live = try EventStreamTests.Live()
        defer { live.stop() }
        let app = live.app
        try app.registerApp()
        let cookie = try ConsentSessionTests.session(app)
        let client = try EventStreamTests.StreamClient(
            port: live.server.localPort, request: "GET /consent/events HTTP/1.1\r\nHost: test\r\nCookie: \(cookie)\r\n\r\n")
        try client.read(until: ": connected\n\n")
        app.clock.advance(by: 600)
        let page = try app.send(.get, "/consent/", headers: [ConsentSessionTests.noKey, ("Cookie", cookie)]).text
        let token = try ConsentSessionTests.csrfToken(in: page)
        let extended = try app.send(
            .post, "/consent/session/extend", body: Array("csrf=\(token)&back=%2Fconsent%2F".utf8),
            headers: [
                ConsentSessionTests.noKey, ("Cookie", cookie), ("Content-Type", "application/x-www-form-urlencoded"),
            ])
        #expect(extended.status == 303 && extended.headers["Location"] == "/consent/?done=extended")
        app.clock.advance(by: 400)  // past the end the stream opened with
        _ = try app.prompt("camera", "full")
        let created = try app.lastSeq()
        try client.read(until: "id: \(created)\nevent: prompt.created\n", limit: .seconds(5))
        app.clock.advance(by: 500)  // past the new end
        _ = try Self.readToEnd(client)
        try client.close()
    }

    @Test func theEventStreamEndsWhenTheSessionExpiresOrTheServerStops() throws {
        let live = try EventStreamTests.Live()
        defer { live.stop() }
        let request = { (cookie: String) in "GET /consent/events HTTP/1.1\r\nHost: test\r\nCookie: \(cookie)\r\n\r\n" }
        let expiring = try EventStreamTests.StreamClient(
            port: live.server.localPort, request: request(try ConsentSessionTests.session(live.app)))
        try expiring.read(until: ": connected\n\n")
        live.app.clock.advance(by: 900)  // the session's lifetime, from the making of its link
        _ = try Self.readToEnd(expiring)
        try expiring.close()

        let stopping = try EventStreamTests.StreamClient(
            port: live.server.localPort, request: request(try ConsentSessionTests.session(live.app)))
        try stopping.read(until: ": connected\n\n")
        live.app.application.stop()
        _ = try Self.readToEnd(stopping)
        try stopping.close()
    }

    @Test func aSessionHoldsAtMostThePerKeyStreamCap() throws {
        let live = try EventStreamTests.Live { $0.maxEventStreamsPerKey = 1 }
        defer { live.stop() }
        let cookie = try ConsentSessionTests.session(live.app)
        let request = "GET /consent/events HTTP/1.1\r\nHost: test\r\nCookie: \(cookie)\r\n\r\n"
        let first = try EventStreamTests.StreamClient(port: live.server.localPort, request: request)
        try first.read(until: ": connected\n\n")
        let second = try EventStreamTests.StreamClient(port: live.server.localPort, request: request)
        try second.read(until: "</html>")
        #expect(second.text.hasPrefix("HTTP/1.1 429"))
        #expect(second.text.contains("Retry-After: 5"))
        try first.close()
        try second.close()
    }

    /// Users with the pages open must not take the backends' change feed: the pages' streams
    /// have their own cap (`--max-consent-event-streams`), and each pool fills alone.
    @Test func thePagesStreamsAndTheChangeFeedHaveCapsOfTheirOwn() throws {
        let live = try EventStreamTests.Live {
            $0.maxEventStreams = 1
            $0.maxConsentEventStreams = 1
        }
        defer { live.stop() }
        let request = { (cookie: String) in "GET /consent/events HTTP/1.1\r\nHost: test\r\nCookie: \(cookie)\r\n\r\n" }
        let page = try EventStreamTests.StreamClient(
            port: live.server.localPort, request: request(try ConsentSessionTests.session(live.app)))
        try page.read(until: ": connected\n\n")
        #expect(live.app.application.openConsentEventStreams == 1 && live.app.application.openEventStreams == 0)

        let feed = try EventStreamTests.StreamClient(port: live.server.localPort, request: live.get("/v1/events"))
        try feed.read(until: ": connected\n\n")
        #expect(feed.text.hasPrefix("HTTP/1.1 200"), "a page's stream takes no slot of the change feed")
        #expect(live.app.application.openEventStreams == 1)

        let another = try EventStreamTests.StreamClient(
            port: live.server.localPort, request: request(try ConsentSessionTests.session(live.app, user: "u43")))
        try another.read(until: "</html>")
        #expect(another.text.hasPrefix("HTTP/1.1 503"), "the pages' own cap")
        #expect(another.text.contains("Retry-After: 5"))
        let secondFeed = try EventStreamTests.StreamClient(port: live.server.localPort, request: live.get("/v1/events"))
        try secondFeed.read(until: "}")
        #expect(secondFeed.text.hasPrefix("HTTP/1.1 503"), "the change feed's own cap")
        for client in [page, feed, another, secondFeed] { try client.close() }
    }

    @Test func theStaticFilesHaveTheirMediaTypesAndKeepTheSecurityHeaders() throws {
        let app = try TestApp()
        let files = [
            ("/consent/static/style.css", "text/css; charset=utf-8"),
            ("/consent/static/app.js", "text/javascript; charset=utf-8"),
        ]
        for (path, type) in files {
            let response = try app.send(.get, path, headers: [ConsentSessionTests.noKey])
            #expect(response.status == 200 && response.headers["Content-Type"] == type, "\(path)")
            #expect(response.headers["Cache-Control"] == "no-store")
            #expect(response.headers["Content-Security-Policy"] == ConsentSessionTests.securityHeaders[0].1)
            #expect(
                response.headers["X-Content-Type-Options"] == "nosniff" && response.headers["Referrer-Policy"] == "no-referrer")
            #expect(response.body.count > 500)
        }
        let css = try app.send(.get, "/consent/static/style.css", headers: [ConsentSessionTests.noKey]).text
        #expect(
            css.contains("prefers-color-scheme: dark") && css.contains("overflow-wrap: anywhere")
                && css.contains(":focus-visible"))
        let js = try app.send(.get, "/consent/static/app.js", headers: [ConsentSessionTests.noKey]).text
        #expect(js.contains("/consent/events") && js.contains("/consent/prompts-fragment"))
        let missing = try app.send(.get, "/consent/static/other.js", headers: [ConsentSessionTests.noKey])
        #expect(missing.status == 404 && missing.headers["Cache-Control"] == "no-store")
    }

    /// Every page of a session: the layout pages.md fixes.
    @Test func everyPageHasTheLayout() throws {
        let app = try TestApp()
        let browser = try ConsentBrowser(app, acceptLanguage: "de")
        for (target, current) in [
            ("/consent/", "nav-prompts"), ("/consent/settings", "nav-settings"), ("/consent/history", "nav-history"),
        ] {
            let page = try browser.get(target).text
            #expect(
                page.hasPrefix(
                    #"<!DOCTYPE html><html lang="de"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">"#
                ))
            #expect(
                page.contains(
                    #"<link rel="stylesheet" href="/consent/static/style.css"><script src="/consent/static/app.js" defer=""></script>"#
                ))
            #expect(page.components(separatedBy: "<h1>").count == 2 && page.contains(#"<main id="main"><h1>"#))
            for (id, href) in [
                ("nav-prompts", "/consent/"), ("nav-settings", "/consent/settings"), ("nav-history", "/consent/history"),
            ] {
                let current = id == current ? #" aria-current="page""# : ""
                #expect(page.contains(#"<a id="\#(id)" href="\#(href)"\#(current)>"#), "\(target) \(id)")
            }
            #expect(
                page.contains(
                    #"<form id="logout" method="post" action="/consent/logout"><input type="hidden" name="csrf" value=""#))
            #expect(!page.contains("style=") && !page.contains("<style"))
            let forms = page.components(separatedBy: "<form").count - 1
            #expect(page.components(separatedBy: #"name="csrf""#).count - 1 == forms, "every form has the CSRF field")
            #expect(page.components(separatedBy: #"method="post""#).count - 1 == forms, "every form posts")
        }
    }
}
