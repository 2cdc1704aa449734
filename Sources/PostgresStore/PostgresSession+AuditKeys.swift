import AuditKeys
import Foundation
import PermissionDomain

/// The per-user audit keys (``AuditKeyring``) in the `audit_subjects` table, and erasure.
extension PostgresSession {
    /// A user's pseudonym and wrapped key.
    struct AuditSubject {
        let pseudonym: String
        let wrappedKey: String
    }

    /// Seals an entry's personal fields under its user's key, creating the key the first time
    /// (writers hold the chain head's lock, so two never create one user's key at once).
    struct Sealer: PersonalFieldSealer {
        let session: PostgresSession
        let keyring: AuditKeyring

        func seal(_ fields: PersonalFields, seq: Int64) throws -> SealedPersonalFields {
            let subject = try session.auditSubject(of: fields.user) ?? session.createAuditSubject(for: fields.user, keyring: keyring)
            return SealedPersonalFields(
                pseudonym: subject.pseudonym,
                ciphertext: try keyring.seal(fields, wrappedKey: subject.wrappedKey, pseudonym: subject.pseudonym, seq: seq))
        }
    }

    private static let subject = PreparedStatement("SELECT pseudonym, wrapped_key FROM audit_subjects WHERE user_id = $1")
    private static let insertSubject = PreparedStatement("""
        INSERT INTO audit_subjects (user_id, pseudonym, wrapped_key, created_at) VALUES ($1, $2, $3, $4)
        """)

    /// `user`'s pseudonym and wrapped key, or nil when the log holds nothing about them (or they
    /// were erased).
    func auditSubject(of user: String) throws -> AuditSubject? {
        try row(Self.subject, [.text(user)]) {
            AuditSubject(
                pseudonym: try $0.required(0, "audit_subjects", "pseudonym"),
                wrappedKey: try $0.required(1, "audit_subjects", "wrapped_key"))
        }
    }

    /// A new key for `user`, wrapped by `keyring`.
    func createAuditSubject(for user: String, keyring: AuditKeyring) throws -> AuditSubject {
        let (pseudonym, wrappedKey) = keyring.newSubject()
        _ = try connection.execute(
            Self.insertSubject, [.text(user), .text(pseudonym), .text(wrappedKey), .int64(Date().millisecondsSince1970)])
        return AuditSubject(pseudonym: pseudonym, wrappedKey: wrappedKey)
    }

    private static let erasures = ["authorizations", "prompts", "user_settings", "policies", "consent_sessions", "audit_subjects"]
        .map { table in (table, PreparedStatement("DELETE FROM \(table) WHERE user_id = $1")) }

    func eraseUser(_ user: UserID) throws -> UserErasure {
        let pseudonym = try auditSubject(of: user.rawValue)?.pseudonym
        var deleted: [String: Int] = [:]
        for (table, statement) in Self.erasures {
            deleted[table] = try connection.execute(statement, [.text(user.rawValue)])
        }
        changes?.erasedEverything()
        return UserErasure(
            pseudonym: pseudonym, authorizations: deleted["authorizations"] ?? 0, prompts: deleted["prompts"] ?? 0,
            settings: (deleted["user_settings"] ?? 0) > 0, policies: deleted["policies"] ?? 0,
            consentSessions: deleted["consent_sessions"] ?? 0)
    }
}
