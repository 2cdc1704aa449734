import Foundation
import HTTPCore
import PermissionDomain

/// The consent pages' entry (SPEC §10): the one-time link's start, which exchanges the token
/// for the session cookie and redirects so the token leaves the address bar and history; the
/// session's home page (the user and their pending prompts); one prompt; and logout. The real
/// pages build on this: a route per page through `APIRoutes.page`, a ``ConsentPage`` to render,
/// ``ConsentForm/checked(_:visit:limits:)`` for every form that changes something.
struct ConsentController {
    let permissions: PermissionService
    let sessions: ConsentSessionAuthenticator
    let cookieSecure: Bool

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        let sessions = sessions
        let secure = cookieSecure
        routes.openPage(.get, "/consent/start") { request, _ in
            // A HEAD (a link checker, a mail scanner) must not use up the link: only a GET opens it.
            if request.head.method == .head {
                return ConsentPage(
                    status: .ok, title: "Open this link in your browser",
                    content: [ConsentPage.paragraph("This link opens your privacy choices, once.")]
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
            let cookie = ConsentCookie.set(
                secret, now: permissions.clock.now, expiresAt: session.expiresAt, secure: secure)
            return HTTPResponse(status: HTTPStatus(code: 303), headers: ["Location": "/consent/", "Set-Cookie": cookie])
        }
        routes.page(.get, "/consent/", access: .readPrompts, sessions: sessions) { _, _, visit in
            let pending = try permissions.prompts(
                matching: PromptFilter(user: visit.user, state: .pending), after: nil, limit: 50)
            return Self.home(visit: visit, pending: pending.items).response
        }
        routes.page(.get, "/consent/prompts/{id}", access: .readPrompts, sessions: sessions) { _, context, visit in
            guard let raw = context.parameters["id"], let id = try? PromptID(raw),
                let prompt = try? permissions.prompt(id: id), prompt.user == visit.user
            else { throw ConsentPageError.notFound }  // another user's prompt is not said to exist
            return ConsentPage(
                status: .ok, title: "\(prompt.app.rawValue) would like to use \(prompt.service.rawValue)",
                content: [
                    ConsentPage.paragraph(prompt.purpose.rawValue),
                    ConsentPage.paragraph("State: \(prompt.state.rawValue)"),
                ]
            ).response
        }
        routes.page(.post, "/consent/logout", access: .consentSession, sessions: sessions) { request, context, visit in
            _ = try ConsentForm.checked(request, visit: visit)
            try permissions.endConsentSession(
                id: visit.session.id, actor: visit.session.actor, requestId: context.requestId)
            var page = ConsentPage(
                status: .ok, title: "You are signed out",
                content: [ConsentPage.paragraph("Your choices are saved. To change them again, ask for a new link.")])
            page.headers.add(name: "Set-Cookie", value: ConsentCookie.clear(secure: secure))
            return page.response
        }
    }

    /// The session's home page: whose choices these are, their pending prompts, and logout.
    static func home(visit: ConsentVisit, pending: [Prompt]) -> ConsentPage {
        let prompts: HTML =
            pending.isEmpty
            ? ConsentPage.paragraph("No app is waiting for an answer.")
            : HTML.element(
                "ul", [:],
                pending.map { prompt in
                    HTML.element(
                        "li", [:],
                        HTML.element(
                            "a", ["href": "/consent/prompts/\(prompt.id.rawValue)"],
                            HTML("\(prompt.app.rawValue): \(prompt.service.rawValue)")))
                })
        return ConsentPage(
            status: .ok, title: "Privacy choices of \(visit.user.rawValue)",
            content: [
                HTML.element("h2", [:], HTML("Waiting for your answer")), prompts,
                ConsentPage.form(action: "/consent/logout", csrfToken: visit.csrfToken, button: "Sign out"),
            ])
    }
}
