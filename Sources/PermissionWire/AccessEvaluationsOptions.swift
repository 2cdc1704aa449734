/// `options` of `POST /access/v1/evaluations` (AuthZEN Authorization API 1.0 §7.1.2).
public struct AccessEvaluationsOptions: Codable, Equatable, Sendable {
    /// `execute_all` (the default), `deny_on_first_deny` or `permit_on_first_permit`.
    public var evaluationsSemantic: String?

    public init(evaluationsSemantic: String? = nil) {
        self.evaluationsSemantic = evaluationsSemantic
    }

    enum CodingKeys: String, CodingKey {
        case evaluationsSemantic = "evaluations_semantic"
    }
}
