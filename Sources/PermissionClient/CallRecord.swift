/// One finished call, given to `PermissionClient.Configuration.onCall` for logs and metrics:
/// what was called, the request id, the outcome, how long it took and how much of that it
/// waited for a call thread.
public struct CallRecord: Sendable {
    /// `GET`, `PUT`, `POST` or `DELETE`.
    public var method: String
    /// The path and query, as sent.
    public var path: String
    /// The request id the server echoed (else the one sent).
    public var requestId: String
    /// The final HTTP status, or `nil` when no answer came.
    public var status: Int?
    /// Attempts made, retries included; 0 for an async call that failed before its first
    /// (it found no free call thread within its timeout, its task was cancelled while it
    /// waited for one, or the queue was full).
    public var attempts: Int
    /// Wall time of the whole call, retries and backoff included, and the wait for a thread.
    public var duration: Duration
    /// How long an async call waited for one of the client's call threads before its first
    /// attempt (`Configuration.maxCallThreads`; part of `duration`). A wait that grows shows
    /// the threads are all busy: the server is slow, or the cap is too low for the load.
    /// Zero for the blocking forms.
    public var queueWait: Duration = .zero
    /// The failure, when the call failed.
    public var error: PermissionClientError?
}
