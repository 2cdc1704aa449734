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
        /// The longest wait for one whole attempt, connection included; an async call's wait
        /// for a call thread counts toward its first (see `maxCallThreads`). Default 10 s;
        /// rounded up to whole milliseconds, at least 1 ms (libcurl reads 0 as no timeout at all).
        public var timeout: Duration
        /// When and how to retry a call; see `RetryPolicy`.
        public var retry: RetryPolicy
        /// When and how the change feed (`followEvents`, `events`) reconnects after a lost
        /// connection or a "later" answer, and how many failed attempts in a row end it. Not
        /// `retry`: a call has a caller waiting on it, while a feed is followed for hours and
        /// must ride out a server's restart or a rolling update. Default ``RetryPolicy/feed``: 20
        /// attempts, from 200 ms doubling to at most 10 s apart, which give up after about one
        /// to two minutes without a server.
        public var eventsRetry: RetryPolicy
        /// The `User-Agent` sent (RFC 9110 §10.1.5).
        public var userAgent: String
        /// Verify the server's certificate and host name on `https` (default true).
        public var verifyTLS: Bool
        /// A PEM file of the certificate authorities that the server's certificate is verified
        /// against, instead of the system's (`CURLOPT_CAINFO`): a private CA, rather than
        /// turning `verifyTLS` off. nil (the default): the system's bundle.
        public var caFile: String? = nil
        /// The server's public key the connection must present, besides a certificate that
        /// verifies (`CURLOPT_PINNEDPUBLICKEY`): a PEM or DER file, or `sha256//<base64>` hashes
        /// separated by `;`. nil (the default): no pinning.
        public var pinnedPublicKey: String? = nil
        /// The proxy calls go through (`http://host:port`, `socks5h://...`). nil (the default):
        /// libcurl's environment variables decide (`http_proxy`, `HTTPS_PROXY`, `ALL_PROXY`,
        /// `NO_PROXY`), as for curl; `""`: never a proxy, whatever the environment says. Over
        /// a proxy and plain `http`, the API key crosses it readable.
        public var proxy: String? = nil
        /// Easy handles kept idle for reuse, each with its kept-alive connection; nil (the
        /// default): as many as `maxCallThreads`. A handle given back while this many wait is
        /// closed, with its connection, and a call that finds none idle opens a new one (a TCP
        /// and TLS handshake): fewer than the calls that run at once closes and opens
        /// connections all the time under load.
        public var maxIdleHandles: Int?
        /// The longest the change feed (`followEvents`, `events`) waits for a byte before it
        /// drops the connection and resumes as after a lost one. The server sends a comment
        /// line at least every 15 s on an idle stream, so a feed silent for longer is dead (a
        /// half-open connection, a proxy that stopped forwarding). Default 45 s, three
        /// heartbeats; `.zero` waits for ever. It counts from the request, so it also bounds the
        /// wait for the answer's head; polled about once a second.
        public var eventsIdleTimeout: Duration
        /// The most threads this client's async calls (`send`, the typed methods, `download`)
        /// run on at once; each holds its thread, and a connection, for its whole exchange. A
        /// call that finds them all busy waits in a FIFO queue, and that wait counts toward its
        /// `timeout`: one still waiting when the timeout passes fails with the timeout error
        /// (`isTimeout`) without sending anything. Default 128: by Little's law (threads =
        /// calls a second × time each), enough for 25,000 calls a second at 5 ms an answer, or
        /// 12,800 at 10 ms, while a server that stops answering costs 128 threads instead of one
        /// per call in flight until each call's timeout (50,000 at 5,000 calls a second and
        /// 10 s), where a thread that cannot be created ends the process. It also stays under
        /// the server's per-address connection limit (`--max-connections-per-address`, 256 by
        /// default) with room for a second process on the host. 1 to 1,024 (the server's
        /// default connection cap; more threads buy memory and connections, not answers);
        /// another value is `.invalidArgument`. The threads are the client's own, so the usual
        /// one client per process makes this the process's cap; a thread left idle 10 s ends.
        /// The change feed (`events`) runs on a thread of its own outside this cap, as it holds
        /// it for as long as it is followed; the blocking forms run on the caller's thread.
        public var maxCallThreads: Int
        /// The most async calls that wait for a call thread at once; one more fails at once
        /// with `.callQueueFull`, so that memory stays bounded and a backend facing a hung
        /// server sheds its load fast rather than holding every call until its timeout. Default
        /// 1,024: a burst that long drains in 80 ms over 128 threads at 10 ms an answer, and
        /// against a hung server it fills within a fraction of a second. 0 to 65,536 (0: a call
        /// that finds every thread busy fails at once); another value is `.invalidArgument`.
        public var maxQueuedCalls: Int
        /// Called after every call, success or failure: on the calling thread for the blocking
        /// forms, on the call's thread for the async ones (for one that never got a thread, on
        /// the caller's when the queue was full, else on a Dispatch thread).
        public var onCall: (@Sendable (CallRecord) -> Void)?

        /// The range `maxCallThreads` must be in.
        static let callThreadRange = 1...1024
        /// The range `maxQueuedCalls` must be in.
        static let queuedCallRange = 0...65_536

        /// - Parameters:
        ///   - baseURL: the server's URL (`http` or `https`).
        ///   - apiKey: the bearer key, or `nil` to send none.
        ///   - connectTimeout: connection timeout.
        ///   - timeout: total timeout per attempt.
        ///   - retry: the retry policy of calls.
        ///   - eventsRetry: the change feed's reconnection policy.
        ///   - userAgent: the `User-Agent`.
        ///   - verifyTLS: certificate verification on `https`.
        ///   - maxIdleHandles: idle handles kept for reuse (nil: `maxCallThreads`).
        ///   - eventsIdleTimeout: the change feed's longest wait for a byte (`.zero`: none).
        ///   - maxCallThreads: the most threads the async calls run on at once (1-1,024).
        ///   - maxQueuedCalls: the most async calls waiting for a thread (0-65,536).
        ///   - onCall: an observer of finished calls (for logs).
        public init(
            baseURL: String, apiKey: String? = nil, connectTimeout: Duration = .seconds(2),
            timeout: Duration = .seconds(10), retry: RetryPolicy = RetryPolicy(), eventsRetry: RetryPolicy = .feed,
            userAgent: String = "PermissionClient/1.0", verifyTLS: Bool = true, maxIdleHandles: Int? = nil,
            eventsIdleTimeout: Duration = .seconds(45), maxCallThreads: Int = 128, maxQueuedCalls: Int = 1024,
            onCall: (@Sendable (CallRecord) -> Void)? = nil
        ) {
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.connectTimeout = connectTimeout
            self.timeout = timeout
            self.retry = retry
            self.eventsRetry = eventsRetry
            self.userAgent = userAgent
            self.verifyTLS = verifyTLS
            self.maxIdleHandles = maxIdleHandles
            self.eventsIdleTimeout = eventsIdleTimeout
            self.maxCallThreads = maxCallThreads
            self.maxQueuedCalls = maxQueuedCalls
            self.onCall = onCall
        }

        /// The base URL without trailing slashes, or an error unless it is `http(s)://host...`
        /// and libcurl can parse it (``URLSyntax``).
        func normalizedBaseURL() throws(PermissionClientError) -> String {
            var url = baseURL
            while url.hasSuffix("/") { url.removeLast() }
            let lower = url.lowercased()
            let shown = Self.redacted(baseURL)
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                throw .invalidArgument("the server URL must start with http:// or https://, got '\(shown)'")
            }
            guard url.count > (lower.hasPrefix("https") ? 8 : 7) else {
                throw .invalidArgument("the server URL has no host: '\(shown)'")
            }
            // Every call's path is appended to it: a query or a fragment would end up before it.
            guard !url.contains("?"), !url.contains("#") else {
                throw .invalidArgument("the server URL must have no query (?) or fragment (#): '\(shown)'")
            }
            if let refusal = URLSyntax.refusal(of: url) {
                throw .invalidArgument("the server URL is malformed (\(refusal)): '\(shown)'")
            }
            return url
        }

        /// `url` with the password of its user information, if any, shown as `***`
        /// (`http://user:***@host`): an error names the URL, never a password in it.
        /// The user information is what comes before the authority's last `@`, with or without a
        /// scheme, whatever characters the password holds but `/`.
        static func redacted(_ url: String) -> String {
            let start = url.range(of: "://")?.upperBound ?? url.startIndex
            let authority = url[start...].prefix { $0 != "/" }
            guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return url }
            return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
        }

        /// Throws `.invalidArgument` unless the call thread cap and the queue's length are in
        /// their ranges.
        func validateCallThreads() throws(PermissionClientError) {
            guard Self.callThreadRange.contains(maxCallThreads) else {
                throw .invalidArgument(
                    "maxCallThreads must be \(Self.callThreadRange.lowerBound) to \(Self.callThreadRange.upperBound), "
                        + "got \(maxCallThreads)")
            }
            guard Self.queuedCallRange.contains(maxQueuedCalls) else {
                throw .invalidArgument(
                    "maxQueuedCalls must be \(Self.queuedCallRange.lowerBound) to \(Self.queuedCallRange.upperBound), "
                        + "got \(maxQueuedCalls)")
            }
        }
    }
}

/// What a log line or `dump` of a configuration shows: the API key only as whether one is set,
/// and a password in the server's or the proxy's URL as `***`.
extension PermissionClient.Configuration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        let fields = shownFields.map { "\($0.label): \($0.value)" }
        return "PermissionClient.Configuration(\(fields.joined(separator: ", ")))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: shownFields.map { (label: Optional($0.label), value: $0.value as Any) })
    }

    private var shownFields: [(label: String, value: String)] {
        [
            ("baseURL", Self.redacted(baseURL)), ("apiKey", apiKey == nil ? "nil" : "(set, not shown)"),
            ("connectTimeout", "\(connectTimeout)"), ("timeout", "\(timeout)"), ("userAgent", userAgent),
            ("verifyTLS", "\(verifyTLS)"), ("caFile", caFile ?? "nil"), ("pinnedPublicKey", pinnedPublicKey ?? "nil"),
            ("proxy", proxy.map(Self.redacted) ?? "nil"), ("maxIdleHandles", maxIdleHandles.map(String.init) ?? "nil"),
            ("eventsIdleTimeout", "\(eventsIdleTimeout)"), ("maxCallThreads", "\(maxCallThreads)"),
            ("maxQueuedCalls", "\(maxQueuedCalls)"), ("onCall", onCall == nil ? "nil" : "(set)"),
        ]
    }
}
