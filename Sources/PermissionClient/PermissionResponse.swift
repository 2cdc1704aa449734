/// A decoded answer with what a log line, a conditional write or a read of one's own write
/// needs: the status, the request id (the server's `X-Request-Id`, else the one the client
/// sent), the `ETag` (RFC 9110 §8.8.3) when the server sent one, how many attempts the call
/// took, and the revision.
public struct PermissionResponse<Value: Sendable>: Sendable {
    public var value: Value
    public var status: Int
    public var requestId: String
    public var etag: String?
    public var attempts: Int
    /// `Permission-Revision` (SPEC §9): the audit seq of a write's last entry. Give it to a
    /// later call's ``Endpoint/consistent(atLeast:)`` to be answered from state that includes
    /// this write, on whichever replica the call lands. nil when the server sent none.
    public var revision: Int64?

    public init(value: Value, status: Int, requestId: String, etag: String?, attempts: Int, revision: Int64? = nil) {
        self.value = value
        self.status = status
        self.requestId = requestId
        self.etag = etag
        self.attempts = attempts
        self.revision = revision
    }
}
