import HTTPCore
import PermissionDomain

/// What a `/consent/` request is refused with, each as a page a person can read in the
/// page's language (never problem+json: a browser shows these). None of them sets a cookie or
/// changes anything.
enum ConsentPageError: Error, Sendable, Equatable {
    /// No cookie, or one that names no live session: the link expired or was never opened.
    case noSession
    /// `/consent/start` without a token, or with one that cannot be a token.
    case malformedLink
    /// The link's token could not be exchanged.
    case link(ConsentSessionError)
    /// A form without the session's CSRF token, or with another.
    case csrf
    /// A form that is not `application/x-www-form-urlencoded`, too large or malformed; `why`
    /// says which.
    case badForm(status: HTTPStatus, why: ConsentText.Key)
    /// A path naming another user, or a right the session does not hold.
    case forbidden
    /// Something of another user, or nothing at all, by that id; or a path under `/consent`
    /// no page answers.
    case notFound
    /// A path under `/consent` whose page does not answer the request's method (405); `allow`
    /// lists the methods it does, for the `Allow` field (RFC 9110 §15.5.6, §10.2.1).
    case methodNotAllowed(allow: String)
    /// A path under `/consent` that cannot be read (an invalid percent-encoding: 400).
    case badAddress
    /// The session holds as many event streams as it may (429), or the server does (503).
    case busy(HTTPStatus)
    /// The user's data is more than one download may hold (`--max-export-records`).
    case exportTooLarge
    /// The session is downloading the user's data already (429).
    case exportRunning
    /// The database could not serve the page in time (503): nothing was changed, and the page
    /// may be loaded again at once (`Retry-After`); or, when `outcomeUnknown`, a change's
    /// commit went unanswered and may have been made (no `Retry-After`: the page is to be read
    /// again first).
    case unavailable(outcomeUnknown: Bool)
    /// A request the HTTP engine refused itself before any page ran (a body over the limit or
    /// too slow, an `Expect` it cannot meet): `status` is the engine's.
    case refused(HTTPStatus)

    /// The page for a miss of the router (``HTTPError`` 400, 404, 405 with `Allow`, or 501) on a path
    /// under `/consent`; nil for any other error.
    init?(routerMiss error: HTTPError) {
        switch error.status.code {
        case 400: self = .badAddress
        case 404: self = .notFound
        case 405: self = .methodNotAllowed(allow: error.headers["Allow"] ?? "")
        case 501: self = .refused(error.status)  // a method the server does not know
        default: return nil
        }
    }

    /// The page that says so, in `language`.
    func page(_ language: ConsentLanguage) -> ConsentPage {
        func page(
            _ status: HTTPStatus, _ title: ConsentText.Key, _ texts: [ConsentText.Key], then more: [HTML] = []
        ) -> ConsentPage {
            let sentence = texts.map { ConsentText.text($0, language) }.joined(separator: " ")
            return ConsentPage(
                status: status, title: ConsentText.text(title, language),
                content: [ConsentPage.paragraph(sentence)] + more, language: language)
        }
        let gone = HTTPStatus(code: 410)
        switch self {
        case .noSession: return page(.unauthorized, .linkExpiredTitle, [.linkExpiredText, .askForNewLink])
        case .malformedLink: return page(.badRequest, .linkIncompleteTitle, [.linkIncompleteText, .askForNewLink])
        case .link(.unknownToken): return page(.badRequest, .linkInvalidTitle, [.linkInvalidText, .askForNewLink])
        case .link(.alreadyUsed):
            // Opened again (a second click in the mail): the click is cross-site, so it carries no
            // SameSite=Strict cookie, and the session it opened may still be live. A link of this
            // page is a same-site navigation, which carries the cookie: the session's pages, or
            // the expired-link page when there is none.
            let onward = HTML.element(
                "p", [:],
                [
                    HTML(ConsentText.text(.linkUsedMayBeOpen, language) + " "),
                    HTML.element("a", ["id": "open", "href": "/consent/"], HTML(ConsentText.text(.openingLink, language))),
                ])
            return page(gone, .linkUsedTitle, [.linkUsedText, .askForNewLink], then: [onward])
        case .link(.expired): return page(gone, .linkTimedOutTitle, [.linkTimedOutText, .askForNewLink])
        case .link(.ended): return page(gone, .linkWithdrawnTitle, [.linkWithdrawnText, .askForNewLink])
        case .csrf: return page(.forbidden, .csrfTitle, [.csrfText])
        case .badForm(let status, let why): return page(status, .badFormTitle, [.badFormText, why])
        case .forbidden: return page(.forbidden, .forbiddenTitle, [.forbiddenText])
        case .notFound: return page(.notFound, .notFoundTitle, [.notFoundText])
        case .methodNotAllowed(let allow):
            var refusal = page(.methodNotAllowed, .methodNotAllowedTitle, [.methodNotAllowedText])
            refusal.headers.add(name: "Allow", value: allow)
            return refusal
        case .badAddress: return page(.badRequest, .badAddressTitle, [.badAddressText])
        case .busy(let status):
            var refusal = page(status, .busyTitle, [.busyText])
            refusal.headers.add(name: "Retry-After", value: "5")
            return refusal
        case .exportTooLarge: return page(HTTPStatus(code: 422), .exportTooLargeTitle, [.exportTooLargeText])
        case .unavailable(let outcomeUnknown):
            var refusal = page(.serviceUnavailable, .unavailableTitle, [outcomeUnknown ? .outcomeUnknownText : .failedText])
            if !outcomeUnknown { refusal.headers.add(name: "Retry-After", value: "1") }
            return refusal
        case .exportRunning:
            var refusal = page(.tooManyRequests, .exportRunningTitle, [.exportRunningText])
            refusal.headers.add(name: "Retry-After", value: "5")
            return refusal
        case .refused(let status): return page(status, .refusedTitle, [.refusedText])
        }
    }
}
