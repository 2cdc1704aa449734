/// One finished call, given to `PermissionClient.Configuration.onCall` for logs and metrics:
/// what was called, the request id, the outcome and how long it took.
public struct CallRecord: Sendable {
    /// `GET`, `PUT`, `POST` or `DELETE`.
    public var method: String
    /// The path and query, as sent.
    public var path: String
    /// The request id the server echoed (else the one sent).
    public var requestId: String
    /// The final HTTP status, or `nil` when no answer came.
    public var status: Int?
    /// Attempts made, retries included.
    public var attempts: Int
    /// Wall time of the whole call, retries and backoff included.
    public var duration: Duration
    /// The failure, when the call failed.
    public var error: PermissionClientError?
}
