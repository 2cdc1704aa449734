import HTTPCore
import PermissionDomain

/// Resolves the consent session of a `/consent/` request from its cookie (SPEC §10): a
/// well-formed secret whose SHA-256 names a live session (exchanged, not ended, not expired).
/// Only the `/consent/` routes ask it; on `/v1` the cookie is no credential.
struct ConsentSessionAuthenticator: Sendable {
    let permissions: PermissionService
    /// The cookie's name and where it is read.
    let cookie: ConsentCookie

    /// The visit of `request`'s session.
    /// - Throws: ``ConsentPageError/noSession`` without a cookie, or with one that names no
    ///   live session; store errors.
    func authenticate(_ request: HTTPRequest) throws -> ConsentVisit {
        guard let secret = cookie.secret(in: request.headers), ConsentSecret.isWellFormed(secret) else {
            throw ConsentPageError.noSession
        }
        let text = String(secret)
        guard let session = try permissions.liveConsentSession(secretHash: ConsentSecret.hash(text)) else {
            throw ConsentPageError.noSession
        }
        return ConsentVisit(
            session: session, csrfToken: ConsentSecret.csrfToken(forSecret: text), at: permissions.clock.now)
    }
}
