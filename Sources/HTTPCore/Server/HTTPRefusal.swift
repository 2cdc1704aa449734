/// A request the engine answers itself, before any responder runs: a head or body it cannot
/// parse or that breaks a limit (400, 413, 414, 417, 431, 501, 505), one that came too slowly
/// (408), or a connection over its address's share (429). `HTTPServerConfiguration.refusalRenderer`
/// turns it into the response; the engine then sends that with `Connection: close`, without
/// its content when the request was `HEAD` (RFC 9110 §9.3.2), and closes.
public struct HTTPRefusal: Sendable {
    /// The status to answer with.
    public var status: HTTPStatus
    /// Why, in a sentence for the problem's `detail`.
    public var detail: String
    /// Fields the refusal needs (`Retry-After` on the per-address `429`).
    public var headers: HTTPHeaders
    /// The request's head when it was parsed (a body over the limit, broken or too slow), so
    /// that its fields (an `X-Request-Id`) can be read; nil when the head itself was refused.
    public var head: HTTPRequestHead?
    /// The method: the head's, or the request line's when the head was refused after it; nil
    /// when no method was read.
    public var method: HTTPMethod?
    /// The request's path: the head's, or as much of it as the request line held when the head
    /// was refused (``HTTPRequestParser/path(ofRefusedHead:)``: a target cut short gives its
    /// beginning); nil when no path was read.
    public var path: String?
    /// A request id the engine made for this answer, unique per server run.
    public var requestId: String

    public init(
        status: HTTPStatus, detail: String, headers: HTTPHeaders = HTTPHeaders(), head: HTTPRequestHead? = nil,
        method: HTTPMethod? = nil, path: String? = nil, requestId: String
    ) {
        self.status = status
        self.detail = detail
        self.headers = headers
        self.head = head
        self.method = method ?? head?.method
        self.path = path ?? head?.path
        self.requestId = requestId
    }

    /// The engine's own rendering, the default of `HTTPServerConfiguration.refusalRenderer`:
    /// problem+json (RFC 9457) of type "about:blank" with the status's reason as its title, the
    /// detail and the engine's request id, and `headers`.
    public static func problem(_ refusal: HTTPRefusal) -> HTTPResponse {
        ProblemJSON.response(
            status: refusal.status, detail: refusal.detail, requestId: refusal.requestId, headers: refusal.headers)
    }
}
