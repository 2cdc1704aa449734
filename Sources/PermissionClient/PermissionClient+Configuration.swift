extension PermissionClient {
    /// How a client connects: where, as whom, with which timeouts and retries.
    ///
    /// TLS peer and host verification are on by default for `https` URLs; turn them off only
    /// for a test server with a self-signed certificate.
    public struct Configuration: Sendable {
        /// The server, e.g. `http://127.0.0.1:8080` (a path prefix is kept; no trailing slash needed).
        public var baseURL: String
        /// The API key, sent as `Authorization: Bearer <key>` (RFC 6750 §2.1) when set; one
        /// with a CR, LF or NUL is refused (`.invalidArgument`).
        public var apiKey: String?
        /// The longest wait for a connection (TCP and TLS handshakes). Default 2 s.
        public var connectTimeout: Duration
        /// The longest wait for one whole attempt, connection included. Default 10 s; rounded
        /// up to whole milliseconds, at least 1 ms (libcurl reads 0 as no timeout at all).
        public var timeout: Duration
        /// When and how to retry; see `RetryPolicy`.
        public var retry: RetryPolicy
        /// The `User-Agent` sent (RFC 9110 §10.1.5).
        public var userAgent: String
        /// Verify the server's certificate and host name on `https` (default true).
        public var verifyTLS: Bool
        /// Easy handles kept idle for reuse, each with its own kept-alive connections.
        public var maxIdleHandles: Int
        /// The longest the change feed (`followEvents`, `events`) waits for a byte before it
        /// drops the connection and resumes as after a lost one. The server sends a comment
        /// line at least every 15 s on an idle stream, so a feed silent for longer is dead (a
        /// half-open connection, a proxy that stopped forwarding). Default 45 s, three
        /// heartbeats; `.zero` waits for ever. It counts from the request, so it also bounds the
        /// wait for the answer's head; polled about once a second.
        public var eventsIdleTimeout: Duration
        /// Called after every call, success or failure, on the calling thread.
        public var onCall: (@Sendable (CallRecord) -> Void)?

        /// - Parameters:
        ///   - baseURL: the server's URL (`http` or `https`).
        ///   - apiKey: the bearer key, or `nil` to send none.
        ///   - connectTimeout: connection timeout.
        ///   - timeout: total timeout per attempt.
        ///   - retry: the retry policy.
        ///   - userAgent: the `User-Agent`.
        ///   - verifyTLS: certificate verification on `https`.
        ///   - maxIdleHandles: idle handles kept for reuse.
        ///   - eventsIdleTimeout: the change feed's longest wait for a byte (`.zero`: none).
        ///   - onCall: an observer of finished calls (for logs).
        public init(
            baseURL: String, apiKey: String? = nil, connectTimeout: Duration = .seconds(2),
            timeout: Duration = .seconds(10), retry: RetryPolicy = RetryPolicy(),
            userAgent: String = "PermissionClient/1.0", verifyTLS: Bool = true, maxIdleHandles: Int = 8,
            eventsIdleTimeout: Duration = .seconds(45), onCall: (@Sendable (CallRecord) -> Void)? = nil
        ) {
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.connectTimeout = connectTimeout
            self.timeout = timeout
            self.retry = retry
            self.userAgent = userAgent
            self.verifyTLS = verifyTLS
            self.maxIdleHandles = maxIdleHandles
            self.eventsIdleTimeout = eventsIdleTimeout
            self.onCall = onCall
        }

        /// The base URL without trailing slashes, or an error unless it is `http(s)://host...`
        /// and libcurl can parse it (``URLSyntax``).
        func normalizedBaseURL() throws(PermissionClientError) -> String {
            var url = baseURL
            while url.hasSuffix("/") { url.removeLast() }
            let lower = url.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                throw .invalidArgument("the server URL must start with http:// or https://, got '\(baseURL)'")
            }
            guard url.count > (lower.hasPrefix("https") ? 8 : 7) else {
                throw .invalidArgument("the server URL has no host: '\(baseURL)'")
            }
            if let refusal = URLSyntax.refusal(of: url) {
                throw .invalidArgument("the server URL is malformed (\(refusal)): '\(baseURL)'")
            }
            return url
        }
    }
}
