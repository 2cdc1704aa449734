import ByteText

/// Renders problem details (RFC 9457) as `application/problem+json` by hand: the object is
/// tiny and fixed, so no encoder is needed on the error path. Strings are escaped in the
/// `scriptSafe` style (U+2028 and U+2029 too), as problem bodies always have been.
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
        let body = ByteCursor.bytes { json in
            json.literal("{\"type\":")
            json.jsonString(type, style: .scriptSafe)
            json.literal(",\"title\":")
            json.jsonString(title ?? status.reason, style: .scriptSafe)
            json.literal(",\"status\":")
            json.decimal(Int64(status.code))
            if let detail {
                json.literal(",\"detail\":")
                json.jsonString(detail, style: .scriptSafe)
            }
            json.literal(",\"requestId\":")
            json.jsonString(requestId, style: .scriptSafe)
            for (name, value) in extensions where !isReserved(name) {
                json.literal(",")
                json.jsonString(name, style: .scriptSafe)
                json.literal(":")
                json.text(value)
            }
            json.literal("}")
        }
        var fields = headers
        fields.replaceOrAdd(name: "Content-Type", value: contentType)
        return HTTPResponse(status: status, headers: fields, body: .bytes(body))
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

    /// The JSON literal for `value`, quotes included (RFC 8259 §7): quotes, backslash, control
    /// characters, U+2028 and U+2029 escaped; everything else, including non-ASCII, as UTF-8.
    public static func quoted(_ value: String) -> String {
        ByteCursor.string { $0.jsonString(value, style: .scriptSafe) }
    }

    private static func isReserved(_ name: String) -> Bool {
        name == "type" || name == "title" || name == "status" || name == "detail" || name == "requestId"
    }
}
