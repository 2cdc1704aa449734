public import PermissionWire

/// The AuthZEN Authorization API 1.0 as typed async calls (SPEC §11).
extension PermissionClient {
    /// Whether `app` may use `action` of `user` now: `camera` for any level of a service,
    /// `location.always` for that level or above. `context` carries the status, reason, level
    /// and `prompt_required`.
    /// - Throws: `PermissionClientError` (400 for an unknown service or level, 403 for an app
    ///   key of another app).
    public func evaluate(
        app: String, user: String, action: String
    ) async throws(PermissionClientError)
        -> AccessEvaluationResponse
    {
        try await send(Endpoints.evaluate(app: app, user: user, action: action)).value
    }

    /// Several evaluations in one request, answered in order (at most 100; see
    /// `AccessEvaluationsOptions` for the short-circuit semantics).
    public func evaluate(
        _ request: AccessEvaluationsRequest
    ) async throws(PermissionClientError)
        -> AccessEvaluationsResponse
    {
        try await send(Endpoints.evaluate(request)).value
    }

    /// The policy decision point's metadata (`/.well-known/authzen-configuration`).
    public func authZENConfiguration() async throws(PermissionClientError) -> AuthZENConfiguration {
        try await send(Endpoints.authZENConfiguration()).value
    }
}
