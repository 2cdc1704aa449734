import HTTPCore
import PermissionDomain

/// Routes of the consent pages (SPEC §10): authenticated by the session cookie instead of an
/// API key, their right checked in `AccessMatrix` for role `user` like every other route, and
/// refused with pages instead of problems.
extension APIRoutes {
    typealias PageHandler = @Sendable (HTTPRequest, RequestContext, ConsentVisit) throws -> HTTPResponse

    /// Registers `handler` for `method` requests matching `template` (under `/consent/`): the
    /// request's consent session is resolved by `sessions` (401 page without one) and must hold
    /// `access` (403 page, or 403 for another user's `{user}`). It runs on a worker thread:
    /// every page reads the store.
    mutating func page(
        _ method: HTTPMethod, _ template: String, access: RouteAccess, sessions: ConsentSessionAuthenticator,
        _ handler: @escaping PageHandler
    ) {
        precondition(ConsentSecurityHeaders.covers(template), "page \(template) must be under /consent/")
        openPage(method, template) { request, context in
            let visit = try sessions.authenticate(request)
            do {
                try AccessControl.authorize(visit.principal, for: access, context: context)
            } catch is APIProblem {
                throw ConsentPageError.forbidden
            }
            return try handler(request, context, visit)
        }
    }

    /// Registers a consent page that needs no session (the link's start), refused with pages.
    mutating func openPage(_ method: HTTPMethod, _ template: String, _ handler: @escaping Router.Handler) {
        let broadcaster = broadcaster
        let writes = method != .get
        router.on(method, template, execution: .worker) { request, context in
            defer { if writes { broadcaster.notify() } }
            do {
                return try handler(request, context)
            } catch let error as ConsentPageError {
                return error.page(ConsentLanguage.of(request.headers)).response
            } catch PermissionError.unavailable(let why, let cause) {
                ErrorMapping.logUnavailable(why: why, cause: cause, context.logger)
                let refusal = ConsentPageError.unavailable(outcomeUnknown: PermissionError.mayHaveChanged(why))
                return refusal.page(ConsentLanguage.of(request.headers)).response
            } catch {
                context.logger.error("consent page failed", metadata: ["error": .string(String(reflecting: error))])
                let language = ConsentLanguage.of(request.headers)
                return ConsentPage(
                    status: .internalServerError, title: ConsentText.text(.failedTitle, language),
                    content: [ConsentPage.paragraph(ConsentText.text(.failedText, language))], language: language
                ).response
            }
        }
    }
}
