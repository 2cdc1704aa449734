/// The answer of `POST /access/v1/evaluation` and one item of an evaluations answer (AuthZEN
/// Authorization API 1.0 §6.2): a denial is a `200` with `decision: false`.
public struct AccessEvaluationResponse: Codable, Equatable, Sendable {
    public var decision: Bool
    public var context: AccessDecisionContext?

    public init(decision: Bool, context: AccessDecisionContext?) {
        self.decision = decision
        self.context = context
    }
}
