/// One item of `evaluations` in `POST /access/v1/evaluations` (AuthZEN Authorization API 1.0
/// §7.1): each member left out takes the request's top-level value (the default).
public struct AccessEvaluationItem: Codable, Equatable, Sendable {
    public var subject: AccessEntity?
    public var action: AccessAction?
    public var resource: AccessEntity?

    public init(subject: AccessEntity? = nil, action: AccessAction? = nil, resource: AccessEntity? = nil) {
        self.subject = subject
        self.action = action
        self.resource = resource
    }
}
