import AuditKeys
import Foundation
import PermissionDomain

/// The per-user audit keys (``AuditKeyring``) in the `audit_subjects` table, and erasure.
extension StoreSession {
    /// A user's pseudonym and wrapped key.
    struct AuditSubject {
        let pseudonym: String
        let wrappedKey: String
    }

    private static let insertSubject = StatementSlot(
        "INSERT INTO audit_subjects (user, pseudonym, wrapped_key, created_at) VALUES (?1, ?2, ?3, ?4)")
    private static let selectSubject = StatementSlot("SELECT pseudonym, wrapped_key FROM audit_subjects WHERE user = ?1")

    private static let checkValue = StatementSlot("SELECT check_value FROM audit_keyring WHERE id = 1")

    /// Seals an entry's personal fields under its user's key, creating the key the first time.
    ///
    /// A new key is wrapped only after the database's check value was found to be `keyring`'s,
    /// in the same write transaction: a process still running on a server key that `audit
    /// rotate-key` replaced (where the file system gives the serve lock no force) would
    /// otherwise wrap it under the old key, which the database no longer uses. Its writes about
    /// a new user are refused instead (503).
    func sealer(_ keyring: AuditKeyring) -> SubjectSealer {
        SubjectSealer(keyring: keyring) { user in
            try auditSubject(of: user).map { ($0.pseudonym, $0.wrappedKey) }
        } insert: { user, pseudonym, wrappedKey in
            let stored = try row(Self.checkValue, bind: { _ in }) { $0.string(at: 0) } ?? nil
            guard let stored, keyring.matches(checkValue: stored) else {
                throw PermissionError.unavailable(
                    why: "the audit server key was replaced; this server must be restarted with the new one")
            }
            try run(Self.insertSubject) {
                $0.bind(user, at: 1)
                $0.bind(pseudonym, at: 2)
                $0.bind(wrappedKey, at: 3)
                $0.bind(Date().millisecondsSince1970, at: 4)
            }
        }
    }

    /// The store's keyring; every session that appends to or reads the audit log has one.
    var keyring: AuditKeyring {
        guard let keyring = shared?.keyring else { preconditionFailure("the audit log is used without the store's keyring") }
        return keyring
    }

    /// `user`'s pseudonym and wrapped key, or nil when the log holds nothing about them (or they
    /// were erased).
    func auditSubject(of user: String) throws -> AuditSubject? {
        try row(Self.selectSubject, bind: { $0.bind(user, at: 1) }) {
            AuditSubject(
                pseudonym: try $0.requiredString(at: 0, "audit_subjects", "pseudonym"),
                wrappedKey: try $0.requiredString(at: 1, "audit_subjects", "wrapped_key"))
        }
    }

    func eraseUser(_ user: UserID) throws -> UserErasure {
        func delete(_ table: String) throws -> Int {
            try run("DELETE FROM \(table) WHERE user = ?1") { $0.bind(user.rawValue, at: 1) }
            return database.changes
        }
        let pseudonym = try auditSubject(of: user.rawValue)?.pseudonym
        try raiseVersionFloor(toRecordsOf: user)
        let erasure = UserErasure(
            pseudonym: pseudonym, authorizations: try delete("authorizations"), prompts: try delete("prompts"),
            settings: try delete("user_settings") > 0, policies: try delete("policies"),
            consentSessions: try delete("consent_sessions"), locationAlerts: try delete("location_alerts"))
        _ = try delete("audit_subjects")
        // The user's key, unwrapped by a read of their entries, goes from memory too.
        shared?.keyring.forgetUnwrappedKeys(erasing: pseudonym)
        // The file's pages are zeroed (secure_delete); the WAL's older frames go once it is
        // emptied. Nothing erased: the caller rolls back, and there is nothing to empty.
        if !erasure.isEmpty { shared?.scrubWAL?() }
        return erasure
    }
}
