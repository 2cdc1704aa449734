import HTTPCore
import PermissionDomain

/// What a `/consent/` request is refused with, each as a page a person can read (never
/// problem+json: a browser shows these). None of them sets a cookie or changes anything.
enum ConsentPageError: Error, Sendable, Equatable {
    /// No cookie, or one that names no live session: the link expired or was never opened.
    case noSession
    /// `/consent/start` without a token, or with one that cannot be a token.
    case malformedLink
    /// The link's token could not be exchanged.
    case link(ConsentSessionError)
    /// A form without the session's CSRF token, or with another.
    case csrf
    /// A form that is not `application/x-www-form-urlencoded`, too large or malformed.
    case badForm(status: HTTPStatus, why: String)
    /// A path naming another user, or a right the session does not hold.
    case forbidden
    /// Something of another user, or nothing at all, by that id.
    case notFound

    /// The page that says so.
    var page: ConsentPage {
        let askAgain = "Ask the app or service that sent you the link for a new one."
        switch self {
        case .noSession:
            return ConsentPage(
                status: .unauthorized, title: "This link has expired",
                content: [ConsentPage.paragraph("Your session has ended or the link was not opened here. " + askAgain)])
        case .malformedLink:
            return ConsentPage(
                status: .badRequest, title: "This link is not complete",
                content: [ConsentPage.paragraph("The link is missing its code or was cut short. " + askAgain)])
        case .link(.unknownToken):
            return ConsentPage(
                status: .badRequest, title: "This link is not valid",
                content: [ConsentPage.paragraph("The link's code is not one we made. " + askAgain)])
        case .link(.alreadyUsed):
            return ConsentPage(
                status: HTTPStatus(code: 410), title: "This link was already used",
                content: [ConsentPage.paragraph("Each link opens one session, once. " + askAgain)])
        case .link(.expired):
            return ConsentPage(
                status: HTTPStatus(code: 410), title: "This link has expired",
                content: [ConsentPage.paragraph("Links work for a limited time only. " + askAgain)])
        case .link(.ended):
            return ConsentPage(
                status: HTTPStatus(code: 410), title: "This link was withdrawn",
                content: [ConsentPage.paragraph("The session of this link was ended. " + askAgain)])
        case .csrf:
            return ConsentPage(
                status: .forbidden, title: "The form could not be sent",
                content: [ConsentPage.paragraph("Nothing was changed. Go back, reload the page and try again.")])
        case .badForm(let status, let why):
            return ConsentPage(
                status: status, title: "The form could not be read",
                content: [ConsentPage.paragraph("Nothing was changed: \(why)")])
        case .forbidden:
            return ConsentPage(
                status: .forbidden, title: "Not allowed",
                content: [ConsentPage.paragraph("This session may only see and change your own choices.")])
        case .notFound:
            return ConsentPage(
                status: .notFound, title: "Not found",
                content: [ConsentPage.paragraph("There is nothing here for you.")])
        }
    }
}
