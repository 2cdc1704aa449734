/// The answer of `POST /access/v1/evaluations` with `evaluations` (AuthZEN Authorization API
/// 1.0 §7.2): one answer per item, in the request's order, ending with the deciding item under
/// a short-circuit semantic.
public struct AccessEvaluationsResponse: Codable, Equatable, Sendable {
    public var evaluations: [AccessEvaluationResponse]

    public init(evaluations: [AccessEvaluationResponse]) {
        self.evaluations = evaluations
    }
}
