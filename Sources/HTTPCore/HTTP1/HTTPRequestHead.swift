/// How a request body is delimited (RFC 9112 §6.3).
public enum HTTPBodyFraming: Sendable, Equatable {
    /// No content: neither Content-Length nor Transfer-Encoding.
    case none
    /// Exactly this many bytes follow the head.
    case contentLength(Int)
    /// The chunked transfer coding (RFC 9112 §7.1).
    case chunked
}

/// A parsed request line and header section.
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: HTTPMethod
    /// The request-target exactly as sent (origin-form, absolute-form or `*`).
    public var target: String
    /// The path of the target, still percent-encoded as sent ("/" for absolute-form without a path, "*" for asterisk-form).
    public var path: String
    /// The query of the target without the "?", still percent-encoded, or nil when absent.
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// The authority: the Host field, or the authority of an absolute-form target (RFC 9112 §3.2.2).
    public var authority: String?
    /// Whether the connection persists after this exchange (RFC 9112 §9.3).
    public var keepAlive: Bool
    /// How the body is framed.
    public var framing: HTTPBodyFraming
    /// `Expect: 100-continue` was sent (RFC 9110 §10.1.1).
    public var expectContinue: Bool

    public init(
        method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion,
        headers: HTTPHeaders, authority: String?, keepAlive: Bool, framing: HTTPBodyFraming,
        expectContinue: Bool
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.authority = authority
        self.keepAlive = keepAlive
        self.framing = framing
        self.expectContinue = expectContinue
    }
}

/// Why a request was rejected; each maps to the status the client is sent before the connection closes.
public enum HTTPParseError: Error, Sendable, Equatable {
    /// Malformed syntax or a framing conflict (400), with a short reason for the problem detail.
    case badRequest(String)
    /// Request line over the limit (414).
    case uriTooLong
    /// Header section or field count over the limit, or trailers over the limit (431).
    case headerFieldsTooLarge
    /// Body over the limit (413).
    case contentTooLarge
    /// A transfer coding the server does not implement (501).
    case notImplemented(String)
    /// An expectation other than 100-continue (417).
    case expectationFailed
    /// A major version other than 1, or 1.x with x > 1 that we refuse (505).
    case versionNotSupported

    public var status: HTTPStatus {
        switch self {
        case .badRequest: .badRequest
        case .uriTooLong: .uriTooLong
        case .headerFieldsTooLarge: .requestHeaderFieldsTooLarge
        case .contentTooLarge: .contentTooLarge
        case .notImplemented: .notImplemented
        case .expectationFailed: .expectationFailed
        case .versionNotSupported: .httpVersionNotSupported
        }
    }

    public var detail: String {
        switch self {
        case .badRequest(let why): why
        case .uriTooLong: "The request line is longer than the server accepts."
        case .headerFieldsTooLarge: "The header section is larger than the server accepts."
        case .contentTooLarge: "The request body is larger than the server accepts."
        case .notImplemented(let coding): "Transfer coding '\(coding)' is not implemented."
        case .expectationFailed: "Only the 100-continue expectation is supported."
        case .versionNotSupported: "Only HTTP/1.0 and HTTP/1.1 are supported."
        }
    }
}
