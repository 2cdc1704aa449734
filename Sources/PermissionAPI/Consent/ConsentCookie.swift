import Foundation
import HTTPCore

/// The consent session's cookie (RFC 6265): `<name>=<session secret>`, scoped to `/consent` so
/// that no `/v1` request carries it, `HttpOnly` (no script reads it), `SameSite=Strict` (no
/// other site's page sends it, the first defence against CSRF) and `Secure` unless the server
/// is told it runs on plain HTTP.
///
/// A `Secure` cookie is named `__Secure-permission_consent` (RFC 6265bis §4.1.3.1): a browser
/// keeps a cookie of that name only when a secure origin set it with `Secure`, so a page of
/// the same host over plain HTTP, or anyone on the network who can answer one, cannot plant a
/// session of their own in its place ("cookie tossing"). A request's cookie is read by that
/// name only: a plain `permission_consent` beside it is ignored. On plain HTTP
/// (`--consent-cookie-secure false`) browsers refuse the prefix, so the name is
/// `permission_consent`.
///
/// Servers of the previous version read `permission_consent` only. So that replicas of both
/// versions serve one session during a rolling update, a Secure cookie is also set and cleared
/// under that name, which this server never reads.
struct ConsentCookie: Sendable {
    static let plainName = "permission_consent"
    static let secureName = "__Secure-" + plainName
    static let path = "/consent"

    /// Whether the cookie is `Secure` (and so prefixed).
    let secure: Bool

    var name: String { secure ? Self.secureName : Self.plainName }

    /// The names the cookie is set under: ``name``, and beside a Secure cookie the plain one for
    /// replicas of the previous version during a rolling update (see above).
    private var names: [String] { secure ? [name, Self.plainName] : [name] }

    /// The `Set-Cookie` values that set `secret` until `expiresAt` (as `Max-Age`, seconds from
    /// `now`, RFC 6265 §5.2.2; at least 1), the cookie itself first.
    func set(_ secret: String, now: Date, expiresAt: Date) -> [String] {
        fields(secret, maxAge: max(1, Int(expiresAt.timeIntervalSince(now).rounded(.down))))
    }

    /// The `Set-Cookie` values that remove the cookie, the cookie itself first.
    func clear() -> [String] { fields("", maxAge: 0) }

    /// A `Set-Cookie` value for each of ``names``.
    private func fields(_ value: String, maxAge: Int) -> [String] {
        names.map {
            "\($0)=\(value); Path=\(Self.path); Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
        }
    }

    /// The session secret the request's `Cookie` fields carry under ``name``, if any (the first
    /// such pair, RFC 6265 §5.4); nil when absent.
    func secret(in headers: HTTPHeaders) -> Substring? {
        let name = name
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
