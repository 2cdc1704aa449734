/// A request method token (RFC 9110 §9). Kept as the exact, case-sensitive token sent.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let delete = HTTPMethod("DELETE")
    public static let patch = HTTPMethod("PATCH")
    public static let options = HTTPMethod("OPTIONS")
    public static let trace = HTTPMethod("TRACE")
    public static let connect = HTTPMethod("CONNECT")

    /// One of the methods RFC 9110 §9 and RFC 5789 define, or `QUERY` (the safe method with
    /// content of the HTTP working group, which clients and test tools already send), which the
    /// server recognizes (a method is case-sensitive: `get` is none of them): a resource that
    /// does not take one answers 405. Any other method is answered 501.
    public var isRegistered: Bool {
        switch rawValue {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY": true
        default: false
        }
    }

    /// Safe and idempotent methods may be retried by clients (RFC 9110 §9.2.2).
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": true
        default: false
        }
    }
}

/// HTTP-version of a message (RFC 9112 §2.3). Only 1.0 and 1.1 are served.
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    public var description: String { "HTTP/\(major).\(minor)" }
}

/// A response status code with its reason phrase.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    public var code: Int
    public var reason: String
    public init(code: Int, reason: String? = nil) {
        self.code = code
        self.reason = reason ?? HTTPStatus.standardReason(code)
    }
    public var description: String { "\(code) \(reason)" }

    /// The codes a response to a request ends with (RFC 9110 §15): a three-digit code, not 1xx.
    static let finalCodes = 200...599

    /// A handler answered with a status that cannot end a request (``finalCodes``).
    struct NotFinal: Error, CustomStringConvertible {
        var code: Int
        var description: String { "status \(code) is not a final status (200-599)" }
    }

    /// 1xx, 204 and 304 responses never carry content (RFC 9110 §6.4.1).
    public var allowsBody: Bool { !(code < 200 || code == 204 || code == 304) }

    public static let `continue` = HTTPStatus(code: 100)
    public static let ok = HTTPStatus(code: 200)
    public static let created = HTTPStatus(code: 201)
    public static let accepted = HTTPStatus(code: 202)
    public static let noContent = HTTPStatus(code: 204)
    public static let seeOther = HTTPStatus(code: 303)
    public static let notModified = HTTPStatus(code: 304)
    public static let badRequest = HTTPStatus(code: 400)
    public static let unauthorized = HTTPStatus(code: 401)
    public static let forbidden = HTTPStatus(code: 403)
    public static let notFound = HTTPStatus(code: 404)
    public static let methodNotAllowed = HTTPStatus(code: 405)
    public static let notAcceptable = HTTPStatus(code: 406)
    public static let requestTimeout = HTTPStatus(code: 408)
    public static let conflict = HTTPStatus(code: 409)
    public static let preconditionFailed = HTTPStatus(code: 412)
    public static let contentTooLarge = HTTPStatus(code: 413)
    public static let uriTooLong = HTTPStatus(code: 414)
    public static let unsupportedMediaType = HTTPStatus(code: 415)
    public static let expectationFailed = HTTPStatus(code: 417)
    public static let unprocessableContent = HTTPStatus(code: 422)
    public static let preconditionRequired = HTTPStatus(code: 428)
    public static let tooManyRequests = HTTPStatus(code: 429)
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    public static let internalServerError = HTTPStatus(code: 500)
    public static let notImplemented = HTTPStatus(code: 501)
    public static let serviceUnavailable = HTTPStatus(code: 503)
    public static let httpVersionNotSupported = HTTPStatus(code: 505)

    /// Reason phrases of RFC 9110 §15.
    public static func standardReason(_ code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(code)"
        }
    }
}
