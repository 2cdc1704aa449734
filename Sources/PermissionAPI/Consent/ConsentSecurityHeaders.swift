import Foundation
import HTTPCore

/// The security headers of every `/consent/` response, pages and refusals alike (SPEC §10):
/// a Content-Security-Policy that allows only the service's own resources and no inline
/// script or style, refuses framing (W3C CSP3 `frame-ancestors`) and form targets elsewhere;
/// no referrer (the start link's token must not leak), no caching, no content sniffing. The
/// static files (``ConsentStatic``) keep their own `Cache-Control`: they hold nothing personal.
struct ConsentSecurityHeaders: HTTPMiddleware {
    static let fields: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
    ]

    /// Whether `path` (as the request sent it) is under the consent pages: whether its first
    /// segment is `consent`. The router splits the raw path on "/" and decodes each segment
    /// holding a "%" before it matches (`/%63onsent/start` and `/c%6Fnsent/start` run the start
    /// page), so the first segment is decoded here the same way: every response of a consent
    /// page gets the headers, whichever of its spellings the request used.
    static func covers(_ path: String) -> Bool {
        let utf8 = path.utf8
        guard utf8.first == UInt8(ascii: "/") else { return false }
        let first = utf8.dropFirst().prefix { $0 != UInt8(ascii: "/") }
        if first.elementsEqual(consentSegment) { return true }
        guard first.contains(UInt8(ascii: "%")),
            let decoded = Substring(first).removingPercentEncoding
        else { return false }
        return decoded == "consent"
    }

    private static let consentSegment = Array("consent".utf8)

    func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) throws -> HTTPResponse {
        guard Self.covers(request.head.path) else { return try next.respond(to: request, context: context) }
        let path = request.head.path
        return try next.respond(to: request, context: context).mapFinal { response in
            var response = response
            let cacheable = response.status.code == 200 && ConsentStatic.files[path] != nil
            for (name, value) in Self.fields where !(cacheable && name == "Cache-Control") {
                response.headers.replaceOrAdd(name: name, value: value)
            }
            return response
        }
    }
}
