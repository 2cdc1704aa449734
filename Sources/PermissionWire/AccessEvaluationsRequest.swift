/// The body of `POST /access/v1/evaluations` (AuthZEN Authorization API 1.0 §7.1): the
/// top-level `subject`, `action` and `resource` are the defaults of every item of
/// `evaluations`; without `evaluations` the request is one evaluation. `context` (any object)
/// is accepted at both levels and not used.
public struct AccessEvaluationsRequest: Codable, Equatable, Sendable {
    public var subject: AccessEntity?
    public var action: AccessAction?
    public var resource: AccessEntity?
    public var evaluations: [AccessEvaluationItem]?
    public var options: AccessEvaluationsOptions?

    public init(
        subject: AccessEntity? = nil, action: AccessAction? = nil, resource: AccessEntity? = nil,
        evaluations: [AccessEvaluationItem]? = nil, options: AccessEvaluationsOptions? = nil
    ) {
        self.subject = subject
        self.action = action
        self.resource = resource
        self.evaluations = evaluations
        self.options = options
    }
}
