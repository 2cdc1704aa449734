import HTTPCore

/// The router's misses under `/consent` (a path no page has, a method its page does not
/// answer, a path that cannot be decoded) answered as pages in the request's language (SPEC
/// §10), like every other `/consent` refusal (``ConsentPageError``): a browser shows them, so
/// they are never the API's problem+json. A 405 keeps its `Allow` field. Installed inside the
/// `ErrorMiddleware`, so that it sees the router's `HTTPError` before it becomes a problem;
/// the security headers are added outside it (``ConsentSecurityHeaders``).
struct ConsentRouteMisses: HTTPMiddleware {
    func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) throws -> HTTPResponse {
        guard ConsentSecurityHeaders.covers(request.head.path) else { return try next.respond(to: request, context: context) }
        do {
            return try next.respond(to: request, context: context)
        } catch let error as HTTPError {
            guard let refusal = ConsentPageError(routerMiss: error) else { throw error }
            return refusal.page(ConsentLanguage.of(request.headers)).response
        }
    }
}
