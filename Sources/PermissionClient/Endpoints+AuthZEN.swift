public import PermissionWire

/// The AuthZEN Authorization API 1.0 operations (SPEC §11).
extension Endpoints {
    /// `POST /access/v1/evaluation`: may `app` use `action` (`camera`, `location.always`) of
    /// `user`? A denial is a `200` with `decision: false`.
    public static func evaluate(app: String, user: String, action: String) -> Endpoint<AccessEvaluationResponse> {
        let body = AccessEvaluationRequest(subject: .app(app), action: AccessAction(name: action), resource: .user(user))
        var endpoint = Endpoint<AccessEvaluationResponse>.json("POST", "/access/v1/evaluation", body: jsonBody(body))
        endpoint.readsOnly = true  // a read: kept-alive connections and retries as for a GET
        return endpoint
    }

    /// `POST /access/v1/evaluations`: up to 100 items with top-level defaults, answered in order
    /// under `request.options?.evaluationsSemantic`.
    public static func evaluate(_ request: AccessEvaluationsRequest) -> Endpoint<AccessEvaluationsResponse> {
        var endpoint = Endpoint<AccessEvaluationsResponse>.json("POST", "/access/v1/evaluations", body: jsonBody(request))
        endpoint.readsOnly = true
        return endpoint
    }

    /// `GET /.well-known/authzen-configuration`: where the evaluation endpoints are.
    public static func authZENConfiguration() -> Endpoint<AuthZENConfiguration> {
        .json("GET", "/.well-known/authzen-configuration")
    }
}
