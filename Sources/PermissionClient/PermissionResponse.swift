/// A decoded answer with what a log line or a conditional write needs: the status, the request
/// id (the server's `X-Request-Id`, else the one the client sent), the `ETag` (RFC 9110 §8.8.3)
/// when the server sent one, and how many attempts the call took.
public struct PermissionResponse<Value: Sendable>: Sendable {
    public var value: Value
    public var status: Int
    public var requestId: String
    public var etag: String?
    public var attempts: Int

    public init(value: Value, status: Int, requestId: String, etag: String?, attempts: Int) {
        self.value = value
        self.status = status
        self.requestId = requestId
        self.etag = etag
        self.attempts = attempts
    }
}
