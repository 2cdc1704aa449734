/// The body of `POST /access/v1/evaluation` (AuthZEN Authorization API 1.0 §6.1): one
/// subject, action and resource; `context` (any object) is accepted and not used. The server
/// reads it with `AccessEvaluationParser`, not `WireDecoder`; the SDK encodes it.
public struct AccessEvaluationRequest: Codable, Equatable, Sendable {
    public var subject: AccessEntity
    public var action: AccessAction
    public var resource: AccessEntity

    public init(subject: AccessEntity, action: AccessAction, resource: AccessEntity) {
        self.subject = subject
        self.action = action
        self.resource = resource
    }
}
