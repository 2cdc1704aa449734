internal import Foundation
package import PermissionDomain

extension ConsentSession {
    /// Decodes a stored consent session from the columns both stores select, in this order:
    /// `id`, the user, `token_hash`, `secret_hash`, `csrf_hash`, `created_at`, `expires_at`,
    /// `exchanged_at`, `ended_at`.
    /// - Throws: the store's corruption error for a value that does not parse or a hash that is
    ///   not 32 bytes.
    package init(storedColumns row: some StoredColumns) throws {
        let id = try row.required(0, "consent_sessions", "id")
        guard ConsentSessionID.isValid(id) else { throw row.corrupt("consent_sessions", "id") }
        let user = try row.required(1, "consent_sessions", row.userColumn)
        guard UserID.isValid(user) else { throw row.corrupt("consent_sessions", row.userColumn) }
        guard let token = try row.bytes(2), token.count == 32 else {
            throw row.corrupt("consent_sessions", "token_hash")
        }
        let secret = try row.bytes(3)
        let csrf = try row.bytes(4)
        guard secret.map({ $0.count == 32 }) ?? true else { throw row.corrupt("consent_sessions", "secret_hash") }
        guard csrf.map({ $0.count == 32 }) ?? true else { throw row.corrupt("consent_sessions", "csrf_hash") }
        guard let created = try row.integer(5) else { throw row.corrupt("consent_sessions", "created_at") }
        guard let expires = try row.integer(6) else { throw row.corrupt("consent_sessions", "expires_at") }
        self.init(
            trusted: ConsentSessionID(trusted: id), user: UserID(trusted: user), tokenHash: token, secretHash: secret,
            csrfHash: csrf, createdAt: Date(millisecondsSince1970: created),
            expiresAt: Date(millisecondsSince1970: expires), exchangedAt: try row.date(7),
            endedAt: try row.date(8))
    }
}
