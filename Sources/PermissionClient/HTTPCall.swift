/// One HTTP exchange as the transport sees it: a method, an encoded path and query, an
/// optional JSON body and extra header fields.
struct HTTPCall: Sendable {
    var method: String
    /// The path and query, already percent-encoded (RFC 3986 §3.3, §3.4).
    var target: String
    var body: [UInt8]?
    /// Extra fields, e.g. `If-Match`.
    var headers: [(name: String, value: String)]
    /// The `Accept` value.
    var accept: String
    /// A `POST` that only reads (an AuthZEN evaluation): as safe to resend as a `GET`.
    var readsOnly = false

    /// `GET`, `PUT` and `DELETE` are idempotent (RFC 9110 §9.2.2); `POST` is not, unless it
    /// only reads.
    var isIdempotent: Bool { method != "POST" || readsOnly }

    /// Whether sending the call again after one that may have reached the server answers what
    /// the first would have: an unconditional `GET` or `PUT` (or a reading `POST`). Idempotent
    /// is not enough: a `DELETE` that took effect answers `404` the second time (an erasure's
    /// result would be lost, the call reported failed), and a `PUT` with `If-Match` answers
    /// `412`, its precondition spent by the first. Those are retried only when nothing reached
    /// the server, or it said nothing was done (a `503` or `429` with `Retry-After`).
    var repeatsSafely: Bool {
        isIdempotent && method != "DELETE"
            && !headers.contains { $0.name.lowercased() == "if-match" || $0.name.lowercased() == "if-none-match" }
    }
}

/// What came back: the status, the few header fields the SDK uses and the body.
struct RawResponse: Sendable {
    var status: Int
    var body: [UInt8]
    var requestId: String?
    var etag: String?
    var contentType: String?
    /// The announced `Content-Length`, if any.
    var contentLength: Int64? = nil
    /// `Retry-After` as sent, if any.
    var retryAfter: String? = nil
    /// `Permission-Revision`, if sent and a number.
    var revision: Int64? = nil
}
