/// The answer to one `AccessQuery`: the effective authorization, exactly as the status read
/// shows it, and whether it permits the level asked for.
public struct AccessEvaluation: Hashable, Sendable {
    public let authorization: Authorization
    /// The level the query needed: the one it named, or the service's weakest.
    public let required: Level
    /// `authorization` is `authorized` at `required` or above.
    public let decision: Bool
    /// `authorization` is `notDetermined` (SPEC §11), or a grant below `required` that the app's
    /// next request for `required` would prompt about (the request flow's rule: the state makes
    /// a prompt due and the app has the purpose strings the level adds).
    public let promptRequired: Bool

    public init(authorization: Authorization, required: Level, decision: Bool, promptRequired: Bool) {
        self.authorization = authorization
        self.required = required
        self.decision = decision
        self.promptRequired = promptRequired
    }
}
