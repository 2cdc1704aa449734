public import AuditKeys
import Foundation
import PermissionDomain

/// Replacing the audit server key (``AuditKeyring``): `permission-server audit rotate-key`.
extension SQLitePermissionStore {
    /// Users' keys wrapped again per batch, between two progress reports.
    static let rewrapBatchSize = 1_000

    /// Wraps every user's audit key again under `newKeyring`'s server key, makes the database's
    /// check value `newKeyring`'s, and appends one `audit.key.rotated` entry (actor `system`,
    /// `detail.subjects` the number of keys), all in one write transaction: a crash or an error
    /// leaves the database under the old key, whole. The users' keys themselves do not change,
    /// so no entry is rewritten and the chain still verifies.
    ///
    /// The store keeps the old key for everything else: close it once this returns, and open
    /// the database with the new key from then on. Nothing else may serve the file meanwhile
    /// (the caller holds the file's serve lock), since a server still on the old key could not
    /// read the keys wrapped again, and would wrap a new user's key under the old one.
    /// - Parameter progress: after each batch: the keys done, and how many there are.
    /// - Returns: the number of users' keys wrapped again.
    /// - Throws: ``AuditKeyError/sameServerKey`` when `newKeyring` is the key in use;
    ///   ``AuditKeyError/unreadable(_:)`` when a stored key does not open with the old key (the
    ///   database was changed outside the program). The database is then unchanged.
    public func rotateAuditServerKey(
        to newKeyring: AuditKeyring, progress: (_ done: Int64, _ total: Int64) -> Void
    ) throws -> Int64 {
        try pool.write { database in
            let session = StoreSession(database: database, shared: writerShared)
            let old = session.keyring
            let stored = try database.withStatement("SELECT check_value FROM audit_keyring WHERE id = 1") {
                try $0.step() ? $0.string(at: 0) : nil
            }
            guard let stored, old.matches(checkValue: stored) else { throw AuditKeyError.wrongServerKey }
            guard !newKeyring.matches(checkValue: stored) else { throw AuditKeyError.sameServerKey }
            let total = try database.withStatement("SELECT count(*) FROM audit_subjects") {
                try $0.step() ? $0.int64(at: 0) : 0
            }
            var done: Int64 = 0
            var after = ""
            while true {
                var batch: [(user: String, pseudonym: String, wrappedKey: String)] = []
                try database.withStatement(
                    "SELECT user, pseudonym, wrapped_key FROM audit_subjects WHERE user > ?1 ORDER BY user LIMIT ?2"
                ) { statement in
                    statement.bind(after, at: 1)
                    statement.bind(Self.rewrapBatchSize, at: 2)
                    while try statement.step() {
                        batch.append(
                            (statement.string(at: 0) ?? "", statement.string(at: 1) ?? "", statement.string(at: 2) ?? ""))
                    }
                }
                guard let last = batch.last else { break }
                try database.withStatement("UPDATE audit_subjects SET wrapped_key = ?2 WHERE user = ?1") { statement in
                    for subject in batch {
                        statement.reset()
                        statement.bind(subject.user, at: 1)
                        statement.bind(
                            try old.rewrap(subject.wrappedKey, pseudonym: subject.pseudonym, under: newKeyring), at: 2)
                        try statement.execute()
                    }
                }
                after = last.user
                done += Int64(batch.count)
                progress(done, total)
            }
            try database.withStatement("UPDATE audit_keyring SET check_value = ?1 WHERE id = 1") { statement in
                statement.bind(newKeyring.newCheckValue(), at: 1)
                try statement.execute()
            }
            try session.append(
                AuditEntry(at: Date(), actor: .system, action: .auditKeyRotated, detail: ["subjects": String(done)]))
            return done
        }
    }
}
