import Foundation
import HTTPCore
import PermissionDomain

/// The consent pages (SPEC §10): the one-time link's start, which exchanges the token for the
/// session cookie and redirects so the token leaves the address bar and history; the pending
/// prompts as iOS alerts (`+Prompts`), Settings › Privacy (`+Settings`), the history
/// (`+History`), the live prompt feed (`+Events`), "Stay Signed In", sign-out and the static files. Every page
/// is a route through `APIRoutes.page` (the session's right checked in the access matrix),
/// every change a CSRF-checked form (``ConsentForm``) answered with 303 and a fixed
/// confirmation (``ConsentFlash``), and every change the same `PermissionService` call as the
/// API's, with the session as actor (role `user`).
struct ConsentController {
    let permissions: PermissionService
    let sessions: ConsentSessionAuthenticator
    let cookie: ConsentCookie
    /// Wakes `/consent/events` streams after writes; closed at shutdown.
    let broadcaster: ChangeBroadcaster
    /// The caps of `/consent/events` streams (a session counts as one key), apart from
    /// `/v1/events`' own: users' open pages never take the backends' feed slots.
    let limiter: StreamLimiter
    /// One download of the user's data at a time a session (``exportsPerSession``): each holds
    /// a read snapshot, and with it one of the store's few export slots and, on SQLite, the
    /// write-ahead log an erasure empties, for as long as it is read.
    let exports = StreamLimiter(maximum: .max, maximumPerKey: ConsentController.exportsPerSession)
    /// Downloads one consent session may run at once.
    static let exportsPerSession = 1
    /// Heartbeat and page size of the event stream.
    let configuration: APIConfiguration

    func register(on routes: inout APIRoutes) {
        registerEntry(on: &routes)
        registerPrompts(on: &routes)
        registerSettings(on: &routes)
        registerHistory(on: &routes)
        registerExport(on: &routes)
        registerEvents(on: &routes)
    }

    /// The link's start, "Stay Signed In", sign-out and the static files.
    private func registerEntry(on routes: inout APIRoutes) {
        let permissions = permissions
        let cookie = cookie
        routes.openPage(.get, "/consent/start") { request, _ in
            let language = ConsentLanguage.of(request.headers)
            // A HEAD (a link checker, a mail scanner) must not use up the link: only a GET opens it.
            if request.head.method == .head {
                return ConsentPage(
                    status: .ok, title: ConsentText.text(.openInBrowserTitle, language),
                    content: [ConsentPage.paragraph(ConsentText.text(.openInBrowserText, language))], language: language
                ).response
            }
            guard let token = try? request.queryValue("token"), ConsentSecret.isWellFormed(Substring(token)) else {
                throw ConsentPageError.malformedLink
            }
            let secret = ConsentSecret.make()
            let session: ConsentSession
            do {
                session = try permissions.exchangeConsentToken(
                    tokenHash: ConsentSecret.hash(token), secretHash: ConsentSecret.hash(secret),
                    csrfHash: ConsentSecret.hash(ConsentSecret.csrfToken(forSecret: secret)))
            } catch let error as ConsentSessionError {
                throw ConsentPageError.link(error)
            }
            // Not a 303: a redirect keeps the navigation as cross-site as the click that began it
            // (a link in a mail or on the integrator's site), and a browser then sends no
            // SameSite=Strict cookie with it. A page of this site that goes on by itself starts a
            // same-site navigation, which carries the cookie.
            var page = ConsentPage(
                status: .ok, title: ConsentText.text(.openingTitle, language),
                content: [
                    ConsentPage.paragraph(ConsentText.text(.openingText, language)),
                    HTML.element(
                        "p", [:],
                        HTML.element("a", ["id": "open", "href": "/consent/"], HTML(ConsentText.text(.openingLink, language)))),
                ],
                language: language)
            page.goesOn = "/consent/"
            for value in cookie.set(secret, now: permissions.clock.now, expiresAt: session.expiresAt) {
                page.headers.add(name: "Set-Cookie", value: value)
            }
            return page.response
        }
        routes.page(.post, "/consent/logout", access: .consentSession, sessions: sessions) { request, context, visit in
            _ = try ConsentForm.checked(request, visit: visit)
            try permissions.endConsentSession(
                id: visit.session.id, actor: visit.session.actor, requestId: context.requestId)
            // A 303 to a page of its own, as every other form here answers: a reload of the
            // answer then loads that page again instead of posting the form once more.
            var response = Self.redirect(Self.signedOutPath)
            for value in cookie.clear() { response.headers.add(name: "Set-Cookie", value: value) }
            return response
        }
        routes.page(.post, Self.extendPath, access: .consentSession, sessions: sessions) { request, context, visit in
            let form = try ConsentForm.checked(request, visit: visit)
            let back = ConsentPage.Section(path: form.value(ConsentPage.backField)) ?? .prompts
            let result: (session: ConsentSession, outcome: ConsentSession.Extension)
            do {
                result = try permissions.extendConsentSession(
                    id: visit.session.id, actor: visit.session.actor, requestId: context.requestId)
            } catch is ConsentSessionError {
                throw ConsentPageError.noSession  // it ended or expired since it was read
            }
            switch result.outcome {
            case .to: break
            case .notYet: return Self.redirect("\(back.path)?done=\(ConsentFlash.Done.extendNotYet.rawValue)")
            case .atLimit: return Self.redirect("\(back.path)?done=\(ConsentFlash.Done.extendLimit.rawValue)")
            }
            guard let secret = cookie.secret(in: request.headers) else { throw ConsentPageError.noSession }
            // The same secret, kept by the browser until the new end.
            var response = Self.redirect("\(back.path)?done=\(ConsentFlash.Done.extended.rawValue)")
            for value in cookie.set(String(secret), now: permissions.clock.now, expiresAt: result.session.expiresAt) {
                response.headers.add(name: "Set-Cookie", value: value)
            }
            return response
        }
        routes.openPage(.get, Self.signedOutPath) { request, _ in
            let language = ConsentLanguage.of(request.headers)
            return ConsentPage(
                status: .ok, title: ConsentText.text(.signedOutTitle, language),
                content: [ConsentPage.paragraph(ConsentText.text(.signedOutText, language))], language: language
            ).response
        }
        // `/consent` itself is the prompts page's address without its slash.
        routes.openPage(.get, "/consent") { _, _ in Self.redirect("/consent/") }
        for path in ConsentStatic.files.keys.sorted() {
            routes.openPage(.get, path) { _, _ in
                guard let response = ConsentStatic.response(path) else { throw ConsentPageError.notFound }
                return response
            }
        }
    }

    /// Where "Stay Signed In" posts (``PermissionService/extendConsentSession(id:actor:requestId:)``).
    static let extendPath = "/consent/session/extend"

    /// Where sign-out leads: a page that says so, with no session (the cookie is cleared).
    static let signedOutPath = "/consent/signed-out"

    /// A `303 See Other` to `location` (a page of this site, with a fixed `done` name at most).
    static func redirect(_ location: String) -> HTTPResponse {
        HTTPResponse(status: .seeOther, headers: ["Location": location])
    }

    /// The `done` confirmation a page was redirected with, if any.
    static func flash(_ request: HTTPRequest) -> ConsentFlash? {
        ConsentFlash.named(try? request.queryValue("done"))
    }
}
