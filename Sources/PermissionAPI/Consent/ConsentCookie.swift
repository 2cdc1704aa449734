import Foundation
import HTTPCore

/// The consent session's cookie (RFC 6265): `permission_consent=<session secret>`, scoped to
/// `/consent` so that no `/v1` request carries it, `HttpOnly` (no script reads it),
/// `SameSite=Strict` (no other site's page sends it, the first defence against CSRF) and
/// `Secure` unless the server is told it runs on plain HTTP.
enum ConsentCookie {
    static let name = "permission_consent"
    static let path = "/consent"

    /// The `Set-Cookie` value that sets `secret` until `expiresAt` (as `Max-Age`, seconds from
    /// `now`, RFC 6265 §5.2.2; at least 1).
    static func set(_ secret: String, now: Date, expiresAt: Date, secure: Bool) -> String {
        let seconds = max(1, Int(expiresAt.timeIntervalSince(now).rounded(.down)))
        let attributes = "Path=\(path); Max-Age=\(seconds); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
        return "\(name)=\(secret); " + attributes
    }

    /// The `Set-Cookie` value that removes the cookie.
    static func clear(secure: Bool) -> String {
        "\(name)=; Path=\(path); Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The session secret the request's `Cookie` fields carry, if any (the first
    /// `permission_consent` pair, RFC 6265 §5.4); nil when absent.
    static func secret(in headers: HTTPHeaders) -> Substring? {
        for field in headers.values(for: "Cookie") {
            for pair in field.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " || $0 == "\t" }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == name { return trimmed[trimmed.index(after: equals)...] }
            }
        }
        return nil
    }
}
