import Foundation

/// Everything the HTTP engine needs to know, as one Sendable value built by `main` or a test.
/// Every field has a documented default; the timeouts follow the slowloris and keep-alive
/// guidance of RFC 9112 §9.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind: "127.0.0.1", "0.0.0.0", "::1", "::" or a host name. Default "127.0.0.1".
    public var host: String = "127.0.0.1"
    /// TCP port; 0 picks a free one (read it back from `HTTPServer.localPort`). Default 8080.
    public var port: Int = 8080
    /// Kernel accept queue length (`listen(2)`); it holds connections beyond the cap. Default 511.
    public var backlog: Int32 = 511
    /// Most open connections; at the cap accepting pauses until one closes. Default 1024.
    public var maxConnections: Int = 1024
    /// Most connections one remote address (IPv4 or IPv6, any port) may hold open, so that
    /// one client cannot take every connection. A connection beyond it is answered `429` with
    /// a problem+json body, `Retry-After: 1` and `Connection: close`, without reading a
    /// request, then closed; the address's other connections and other addresses are
    /// unaffected. 0 turns the share off; at or above `maxConnections` it never applies.
    /// Default 256.
    public var maxConnectionsPerAddress: Int = 256
    /// Renders the answers the engine gives itself, before any responder runs (``HTTPRefusal``:
    /// parse errors and limits, timeouts, the per-address `429`). By default problem+json of
    /// type "about:blank" (``HTTPRefusal/problem(_:)``); an application with its own problem
    /// types and request ids installs its own. Whatever it returns is sent with
    /// `Connection: close`, without its content to a `HEAD` request (its `Content-Length`
    /// kept, RFC 9110 §8.6). Called on an event loop: quick work only.
    public var refusalRenderer: @Sendable (HTTPRefusal) -> HTTPResponse = HTTPRefusal.problem
    /// Requests served on one connection; the last response carries `Connection: close`. Default 1000.
    public var maxRequestsPerConnection: Int = 1000
    /// Parser bounds (line, header bytes and count, body).
    public var limits: HTTPLimits = HTTPLimits()
    /// Time to receive a whole request head once its first byte arrived, and for a new
    /// connection's first byte; past it a partial head gets 408. Default 10 s.
    public var headerTimeout: Duration = .seconds(10)
    /// Time to receive a whole request body once its head was read; past it, 408. Default 30 s.
    public var bodyTimeout: Duration = .seconds(30)
    /// Time a keep-alive connection may wait for its next request; then it is closed silently. Default 60 s.
    public var idleTimeout: Duration = .seconds(60)
    /// Time output may make no progress (a client that stops reading) before the connection is dropped. Default 30 s.
    public var writeTimeout: Duration = .seconds(30)
    /// The least time bytes sent may stay unacknowledged before the kernel gives a connection up
    /// (``unacknowledgedTimeout``), however short `writeTimeout` is.
    public static let minimumUnacknowledgedTimeout: Duration = .seconds(10)
    /// How long bytes sent may stay unacknowledged, or unsent behind a closed window, before the
    /// kernel gives the connection up (`TCP_USER_TIMEOUT`): `writeTimeout`, but at least
    /// ``minimumUnacknowledgedTimeout``. It frees a connection whose client vanished without a
    /// FIN or RST, which the write timeout cannot see while sends still fit the socket's buffer.
    /// The kernel counts from a segment's first retransmission or window probe, whatever the
    /// client read meanwhile, and on a busy host a few losses of loopback's queue back off to
    /// seconds (0.2 + 0.4 + 0.8 + ...): a second's timeout there reset clients that read
    /// steadily, which the write timeout's own check (the bytes the client acknowledged) keeps.
    public var unacknowledgedTimeout: Duration { max(writeTimeout, Self.minimumUnacknowledgedTimeout) }
    /// Bytes a streamed response may buffer before its writer blocks (up to `writeTimeout`, then
    /// throws). Byte bodies are already in memory and are not split. Default 1 MiB.
    public var maxBufferedOutputBytes: Int = 1024 * 1024
    /// Time in-flight requests get to finish after a graceful shutdown begins. Default 10 s.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// How long a closing connection is drained after its final response (RFC 9112 §9.6). Default 1 s.
    public var drainTimeout: Duration = .seconds(1)
    /// Most bytes read and discarded while draining. Default 64 KiB.
    public var drainMaxBytes: Int = 64 * 1024
    /// Event loops (epoll sets) the connections are spread over; each serves its connections
    /// on one thread at a time. Default: the number of processors this process may run on.
    public var eventLoops: Int = HTTPServerConfiguration.processorCount
    /// How long an event loop that just served requests keeps its thread waiting in
    /// `epoll_wait` for more, before it hands the thread back to Dispatch and waits through its
    /// read source again. While traffic flows, a ready connection then wakes the loop's own
    /// thread directly instead of going through Dispatch's event thread and a worker hand-off.
    /// Zero never holds the thread. Default 100 ms.
    public var eventLoopHold: Duration = .milliseconds(100)
    /// Period of the shared timer that sweeps connection deadlines. Default 200 ms.
    public var sweepInterval: Duration = .milliseconds(200)
    /// `Server` field value, or nil (the default) to send none.
    public var serverName: String? = nil

    public init() {}

    /// A configuration with the given address and defaults for the rest.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

extension HTTPServerConfiguration {
    /// Processors this process may run on: the `Cpus_allowed` mask of /proc/self/status
    /// (narrowed by `taskset` and cpusets), else Foundation's count; at least 1.
    public static var processorCount: Int {
        let fallback = max(1, ProcessInfo.processInfo.activeProcessorCount)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
        else { return fallback }
        var count = 0
        for character in line.dropFirst("Cpus_allowed:".count) {
            if let digit = character.hexDigitValue { count += digit.nonzeroBitCount }
        }
        return count > 0 ? min(count, fallback) : fallback
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at zero for negative durations and at `UInt64.max` for
    /// ones too long to count (about 584 years).
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (total, carry) = whole.addingReportingOverflow(UInt64(max(attoseconds, 0) / 1_000_000_000))
        return carry ? .max : total
    }
}
