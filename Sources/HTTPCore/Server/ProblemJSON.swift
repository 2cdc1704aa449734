/// Renders problem details (RFC 9457) as `application/problem+json` by hand: the object is
/// tiny and fixed, so no encoder is needed on the error path.
public enum ProblemJSON {
    /// The media type of a problem object (RFC 9457 §3).
    public static let contentType = "application/problem+json"

    /// A problem response with `type`, `title`, `status`, `detail` and `requestId`.
    /// - Parameters:
    ///   - status: the HTTP status, echoed in the body as `status`.
    ///   - type: a URI naming the problem type; "about:blank" when the status says it all.
    ///   - title: a short summary; the status reason by default.
    ///   - detail: an explanation of this occurrence, or nil to omit it.
    ///   - requestId: the request id, always included so a client can quote it.
    ///   - extensions: extra members as (name, already-encoded JSON value) pairs.
    ///   - headers: extra fields (e.g. `Allow`); `Content-Type` is set here.
    public static func response(
        status: HTTPStatus, type: String = "about:blank", title: String? = nil, detail: String?,
        requestId: String, extensions: [(String, String)] = [], headers: HTTPHeaders = HTTPHeaders()
    ) -> HTTPResponse {
        var json = "{\"type\":"
        appendString(type, to: &json)
        json += ",\"title\":"
        appendString(title ?? status.reason, to: &json)
        json += ",\"status\":"
        json += String(status.code)
        if let detail {
            json += ",\"detail\":"
            appendString(detail, to: &json)
        }
        json += ",\"requestId\":"
        appendString(requestId, to: &json)
        for (name, value) in extensions where !isReserved(name) {
            json += ","
            appendString(name, to: &json)
            json += ":"
            json += value
        }
        json += "}"
        var fields = headers
        fields.replaceOrAdd(name: "Content-Type", value: contentType)
        return HTTPResponse(status: status, headers: fields, body: .bytes(Array(json.utf8)))
    }

    /// The generic 500 for an error nothing mapped: logged (with `where` and the error, which
    /// the request's logger tags with its id) and never described to the client.
    static func unhandled(_ error: any Error, where origin: String, context: RequestContext) -> HTTPResponse {
        context.logger.error("\(origin)", metadata: ["error": .string(String(reflecting: error))])
        return response(
            status: .internalServerError, detail: "The server failed to handle the request.", requestId: context.requestId)
    }

    /// The problem response for an `HTTPError`.
    public static func response(for error: HTTPError, requestId: String) -> HTTPResponse {
        response(
            status: error.status, type: error.type, title: error.title, detail: error.detail,
            requestId: requestId, extensions: error.extensions, headers: error.headers)
    }

    /// Appends `value` as a JSON string literal (RFC 8259 §7): quotes, backslash and control
    /// characters escaped; everything else, including non-ASCII, passes through as UTF-8.
    public static func appendString(_ value: String, to json: inout String) {
        json += "\""
        var plainStart = value.unicodeScalars.startIndex
        var index = plainStart
        let scalars = value.unicodeScalars
        while index != scalars.endIndex {
            let scalar = scalars[index]
            let escape: String? =
                switch scalar.value {
                case 0x22: "\\\""
                case 0x5C: "\\\\"
                case 0x0A: "\\n"
                case 0x0D: "\\r"
                case 0x09: "\\t"
                case 0x08: "\\b"
                case 0x0C: "\\f"
                case 0x00..<0x20, 0x2028, 0x2029: "\\u" + hex4(scalar.value)
                default: nil
                }
            if let escape {
                json.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
                json += escape
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        json.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
        json += "\""
    }

    /// The JSON literal for `value`, quotes included.
    public static func quoted(_ value: String) -> String {
        var json = ""
        appendString(value, to: &json)
        return json
    }

    private static func isReserved(_ name: String) -> Bool {
        name == "type" || name == "title" || name == "status" || name == "detail" || name == "requestId"
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = ""
        for shift in stride(from: 12, through: 0, by: -4) {
            out.unicodeScalars.append(Unicode.Scalar(digits[Int((value >> UInt32(shift)) & 0xF)]))
        }
        return out
    }
}
