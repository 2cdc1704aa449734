/// A page of the audit log (`GET /v1/audit` as `application/json`). `nextAfter` is the `seq`
/// to pass as `after` for the next page, absent when there is none.
public struct AuditPage: Codable, Sendable, Equatable {
    public var items: [AuditEntry]
    public var nextAfter: Int64?

    public init(items: [AuditEntry], nextAfter: Int64? = nil) {
        self.items = items
        self.nextAfter = nextAfter
    }
}
