import AuditKeys
import Foundation
import PermissionDomain
import StoredRows

/// The per-user audit keys (``AuditKeyring``) in the `audit_subjects` table, and erasure.
extension PostgresSession {
    /// A user's pseudonym and wrapped key.
    struct AuditSubject {
        let pseudonym: String
        let wrappedKey: String
    }

    private static let subject = PreparedStatement("SELECT pseudonym, wrapped_key FROM audit_subjects WHERE user_id = $1")
    private static let insertSubject = PreparedStatement(
        """
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

    /// The check value of the server key the users' keys are wrapped under, locked against a
    /// rotation (which takes it `FOR UPDATE`) until the transaction ends.
    static let shareCheckValue = PreparedStatement("SELECT check_value FROM audit_keyring WHERE id = 1 FOR SHARE")

    /// Seals an entry's personal fields under its user's key, creating the key the first time.
    ///
    /// A new key is wrapped only after the database's check value was read, locked, and found to
    /// be `keyring`'s: a replica still running on a server key that `audit rotate-key` replaced
    /// would otherwise wrap it under the old key, which the others no longer use. Its writes
    /// about a new user are refused instead (503), and the lock makes a rotation either wait for
    /// this transaction (and wrap its new key again) or be seen by it.
    func sealer(_ keyring: AuditKeyring) -> SubjectSealer {
        SubjectSealer(keyring: keyring) { user in
            try auditSubject(of: user).map { ($0.pseudonym, $0.wrappedKey) }
        } insert: { user, pseudonym, wrappedKey in
            let stored = try row(Self.shareCheckValue) { try $0.string(at: 0) }
            guard let stored, keyring.matches(checkValue: stored) else {
                throw PermissionError.unavailable(why: PostgresPermissionStore.serverKeyReplaced)
            }
            _ = try connection.execute(
                Self.insertSubject, [.text(user), .text(pseudonym), .text(wrappedKey), .int64(Date().millisecondsSince1970)])
        }
    }

    private static let erasures = [
        "authorizations", "prompts", "user_settings", "policies", "consent_sessions", "location_alerts",
        "audit_subjects",
    ]
    .map { table in (table, PreparedStatement("DELETE FROM \(table) WHERE user_id = $1")) }

    func eraseUser(_ user: UserID) throws -> UserErasure {
        let pseudonym = try auditSubject(of: user.rawValue)?.pseudonym
        forgetVersionFloor()
        var deleted: [String: Int] = [:]
        for (table, statement) in Self.erasures {
            deleted[table] = try connection.execute(statement, [.text(user.rawValue)])
        }
        changes?.erasedEverything()
        // Every replica forgets the keys it kept when it applies the erasure; this one also
        // never keeps this user's again (a snapshot from before may still read their entries).
        keyring?.forgetUnwrappedKeys(erasing: pseudonym)
        return UserErasure(
            pseudonym: pseudonym, authorizations: deleted["authorizations"] ?? 0, prompts: deleted["prompts"] ?? 0,
            settings: (deleted["user_settings"] ?? 0) > 0, policies: deleted["policies"] ?? 0,
            consentSessions: deleted["consent_sessions"] ?? 0, locationAlerts: deleted["location_alerts"] ?? 0)
    }
}
