public import HTTPCore

/// Resolves the caller of a request and decides whether it may use a route (SPEC §6). The
/// API calls it once per request, before the controller, so keys and roles plug in here
/// without touching controllers.
public protocol Authenticator: Sendable {
    /// The principal of `request`.
    /// - Parameters:
    ///   - request: the request; its `Authorization` field carries a Bearer key.
    ///   - context: path parameters (e.g. `app`, for app-bound keys) and the request id.
    ///   - access: what the matched route does.
    /// - Throws: an `HTTPError` 401 or 403 (or any error, mapped at the edge).
    func authenticate(_ request: HTTPRequest, context: RequestContext, access: RouteAccess) throws -> Principal
}

/// Every caller is `anonymous` (role "anonymous", no key id): the behaviour until keys exist.
public struct AnonymousAuthenticator: Authenticator {
    public init() {}

    public func authenticate(_ request: HTTPRequest, context: RequestContext, access: RouteAccess) throws -> Principal {
        .anonymous
    }
}
