import Foundation
import HTTPCore

/// The consent session's cookie (RFC 6265): `<name>=<session secret>`, `HttpOnly` (no script
/// reads it), `SameSite=Strict` (no other site's page sends it, the first defence against
/// CSRF) and `Secure` unless the server is told it runs on plain HTTP. It is no credential
/// anywhere but the consent pages (`/v1` reads keys only).
///
/// A `Secure` cookie is named `__Host-permission_consent` with `Path=/` and no `Domain`
/// (RFC 6265bis §4.1.3.2): a browser keeps a cookie of that name only when this very host set
/// it over a secure origin, so neither a page of the same host over plain HTTP, nor anyone on
/// the network who can answer one, nor a sibling subdomain (`Domain=example.com`, which a
/// `__Secure-` name allows) can plant a session of their own in its place, or shadow the real
/// one with a longer path ("cookie tossing"). On plain HTTP (`--consent-cookie-secure false`)
/// browsers refuse the prefixes, so the name is `permission_consent`, scoped to `/consent`.
///
/// Servers of earlier versions read `__Secure-permission_consent`, and before it
/// `permission_consent` (both `Path=/consent`): so that replicas of these versions serve one
/// session during a rolling update, a Secure cookie is also set and cleared under those names.
/// This server reads the `__Host-` name, and the `__Secure-` one only when there is none (a
/// session an earlier replica opened), never the plain one.
struct ConsentCookie: Sendable {
    static let plainName = "permission_consent"
    static let secureName = "__Host-" + plainName
    /// The `Secure` name of the previous version.
    static let previousSecureName = "__Secure-" + plainName
    /// The path of the plain and the earlier names; the `__Host-` name's is `/`.
    static let path = "/consent"

    /// Whether the cookie is `Secure` (and so prefixed).
    let secure: Bool

    var name: String { secure ? Self.secureName : Self.plainName }

    /// The `Set-Cookie` values that set `secret` until `expiresAt` (as `Max-Age`, seconds from
    /// `now`, RFC 6265 §5.2.2; at least 1), the cookie itself first.
    func set(_ secret: String, now: Date, expiresAt: Date) -> [String] {
        fields(secret, maxAge: max(1, Int(expiresAt.timeIntervalSince(now).rounded(.down))))
    }

    /// The `Set-Cookie` values that remove the cookie, the cookie itself first.
    func clear() -> [String] { fields("", maxAge: 0) }

    /// A `Set-Cookie` value for the cookie, and beside a Secure one for each earlier name (see
    /// above).
    private func fields(_ value: String, maxAge: Int) -> [String] {
        let attributes = "Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
        guard secure else { return ["\(Self.plainName)=\(value); Path=\(Self.path); \(attributes)"] }
        return [
            "\(Self.secureName)=\(value); Path=/; \(attributes); Secure",
            "\(Self.previousSecureName)=\(value); Path=\(Self.path); \(attributes); Secure",
            "\(Self.plainName)=\(value); Path=\(Self.path); \(attributes); Secure",
        ]
    }

    /// The session secret the request's `Cookie` fields carry under ``name`` (the first such
    /// pair, RFC 6265 §5.4), else, for a Secure cookie, under the previous version's name; nil
    /// when absent.
    func secret(in headers: HTTPHeaders) -> Substring? {
        if let value = Self.value(of: name, in: headers) { return value }
        return secure ? Self.value(of: Self.previousSecureName, in: headers) : nil
    }

    /// The value of the first pair named `name` in the request's `Cookie` fields.
    private static func value(of name: String, in headers: HTTPHeaders) -> Substring? {
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
