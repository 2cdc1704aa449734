/// Writes a streamed response body. Each `write` is sent as one chunk; `flush` pushes buffered
/// bytes to the socket. Both throw when the client has gone or stopped reading past the write
/// timeout, or when the body ran past the time `limitDuration(to:)` gave it, which is the
/// streaming handler's signal to stop.
public protocol HTTPBodyWriter {
    func write(_ bytes: [UInt8]) throws
    func flush() throws
    /// Bounds the time the rest of the body may take, from now: once `duration` has passed, a
    /// write or flush throws ``StreamDeadlineExceeded``, and one blocked on a slow client throws
    /// when it passes, so the body ends unterminated and the connection is reset. The write
    /// timeout only catches a client that stops reading; this catches one that reads slowly but
    /// steadily, for a stream that holds something costly to its end (a database snapshot). A
    /// later call replaces the bound.
    func limitDuration(to duration: Duration)
    /// Whether the client has closed or reset the connection, looked at without waiting and
    /// without consuming anything it sent. A stream that writes rarely (an idle event feed)
    /// asks between writes, so that a client that left frees what the stream holds at once
    /// rather than at the next write.
    var isPeerGone: Bool { get }
}

extension HTTPBodyWriter {
    /// Writers that cannot tell (in-memory ones) say the peer is there: a write finds out.
    public var isPeerGone: Bool { false }

    /// Writers that never wait for a client (in-memory ones) have nothing to bound.
    public func limitDuration(to duration: Duration) {}
}

/// A streamed body ran past the time its handler gave it (``HTTPBodyWriter/limitDuration(to:)``);
/// the engine ends it unterminated and resets the connection.
public struct StreamDeadlineExceeded: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bound that was given.
    public let limit: Duration

    public init(limit: Duration) { self.limit = limit }

    public var description: String { "the response body was not sent within \(limit)" }
}

/// A response body: bytes known up front (sent with Content-Length) or a stream written by a
/// closure (sent with chunked transfer coding; used for Server-Sent Events and NDJSON); or, for
/// a responder's placeholder, the response to come (`HTTPDeferredResponse`), which the engine
/// waits for and never sends as it is.
public enum HTTPResponseBody: Sendable {
    case bytes([UInt8])
    case stream(@Sendable (any HTTPBodyWriter) throws -> Void)
    case deferred(HTTPDeferredResponse)

    public static let empty = HTTPResponseBody.bytes([])
}

/// A response as handlers build it. The engine adds `Date`, `Content-Length` or
/// `Transfer-Encoding`, and `Connection` where needed.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: HTTPResponseBody

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: HTTPResponseBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: HTTPStatus = .ok, contentType: String, body: [UInt8]) {
        self.status = status
        self.headers = ["Content-Type": contentType]
        self.body = .bytes(body)
    }
}
