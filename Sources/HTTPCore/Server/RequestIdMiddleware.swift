/// Adopts a sane incoming `X-Request-Id` (1-128 characters of `A-Z a-z 0-9 . _ : -`) as the
/// request id, else keeps the one the engine generated; puts it in the logger metadata as
/// "request-id" and echoes it on the response, errors included when an `ErrorMiddleware`
/// runs inside this one.
public struct RequestIdMiddleware: HTTPMiddleware {
    /// The header field carrying the id.
    public static let headerName = "X-Request-Id"

    public init() {}

    public func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) throws -> HTTPResponse {
        let incoming = request.headers[Self.headerName].flatMap { Self.isSane($0) ? $0 : nil }
        var response: HTTPResponse
        if let incoming {
            // Copied only here: most requests bring no id, and a context copy costs a retain
            // and a release per stored reference.
            var context = context
            context.requestId = incoming  // the context's logger follows (see `RequestContext.logger`)
            response = try next.respond(to: request, context: context)
        } else {
            response = try next.respond(to: request, context: context)
        }
        let id = incoming ?? context.requestId
        if response.deferred != nil {
            return response.mapFinal { final in
                var final = final
                final.headers.replaceOrAdd(name: Self.headerName, value: id)
                return final
            }
        }
        response.headers.replaceOrAdd(name: Self.headerName, value: id)
        return response
    }

    /// 1-128 bytes of `A-Za-z0-9._:-`: safe to log and to echo.
    public static func isSane(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard !utf8.isEmpty, utf8.count <= 128 else { return false }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: ":"), UInt8(ascii: "-"):
                continue
            default:
                return false
            }
        }
        return true
    }
}
