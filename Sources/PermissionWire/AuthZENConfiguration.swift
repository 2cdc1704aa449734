/// `GET /.well-known/authzen-configuration` (AuthZEN Authorization API 1.0 §9, policy decision
/// point metadata): absolute URLs.
public struct AuthZENConfiguration: Codable, Equatable, Sendable {
    public var policyDecisionPoint: String
    public var accessEvaluationEndpoint: String
    public var accessEvaluationsEndpoint: String

    public init(policyDecisionPoint: String) {
        self.policyDecisionPoint = policyDecisionPoint
        accessEvaluationEndpoint = policyDecisionPoint + "/access/v1/evaluation"
        accessEvaluationsEndpoint = policyDecisionPoint + "/access/v1/evaluations"
    }

    enum CodingKeys: String, CodingKey {
        case policyDecisionPoint = "policy_decision_point"
        case accessEvaluationEndpoint = "access_evaluation_endpoint"
        case accessEvaluationsEndpoint = "access_evaluations_endpoint"
    }
}
