public import HTTPCore

/// Resolves the caller of a request (SPEC §6). The API calls it once per request to a
/// non-open route, before the controller; `AccessControl` then checks the route's right.
public protocol Authenticator: Sendable {
    /// The principal of `request`.
    /// - Parameters:
    ///   - request: the request; its `Authorization` field carries a Bearer key (RFC 6750 §2.1).
    ///   - context: the request id, logger and remote address.
    /// - Throws: a 401 or 429 problem (or any error, mapped at the edge).
    func authenticate(_ request: HTTPRequest, context: RequestContext) throws -> Principal

    /// The principal of `request` as the store holds its key now, not as memory kept it: for a
    /// request that asked for a revision (`Permission-Consistency`) of a store whose revisions
    /// are its database's own (SQLite), so that a key another process revoked at or before that
    /// revision is refused.
    func authenticateFromStore(_ request: HTTPRequest, context: RequestContext) throws -> Principal
}

extension Authenticator {
    public func authenticateFromStore(_ request: HTTPRequest, context: RequestContext) throws -> Principal {
        try authenticate(request, context: context)
    }
}

/// Knows no keys: every caller is `anonymous`, so every route but the open ones answers 401.
public struct AnonymousAuthenticator: Authenticator {
    public init() {}

    public func authenticate(_ request: HTTPRequest, context: RequestContext) throws -> Principal {
        .anonymous
    }
}
