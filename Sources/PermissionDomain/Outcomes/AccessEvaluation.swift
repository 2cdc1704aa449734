/// The answer to one `AccessQuery`: the effective authorization, exactly as the status read
/// shows it, and whether it permits the level asked for.
public struct AccessEvaluation: Hashable, Sendable {
    public let authorization: Authorization
    /// The level the query needed: the one it named, or the service's weakest.
    public let required: Level
    /// `authorization` is `authorized` at `required` or above.
    public let decision: Bool

    public init(authorization: Authorization, required: Level, decision: Bool) {
        self.authorization = authorization
        self.required = required
        self.decision = decision
    }
}
