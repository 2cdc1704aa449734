import AuditKeys
import Foundation
import PermissionDomain

/// Migration 8: personal fields of the audit log sealed under a key per user (SPEC §11
/// Erasure, §12).
///
/// Adds `audit.personal`, the per-user key table `audit_subjects` (the user, a random
/// pseudonym, the user's key wrapped by the server key) and `audit_keyring` (a check value
/// that tells whether the database is opened with the server key its keys were wrapped by).
/// A log written before is resealed in seq order, in batches: each entry about a user gets the
/// user's pseudonym in `user`, NULL in `purpose` and the two sealed in `personal`, and the whole
/// chain is rehashed in the current format (``AuditChain/Format/v2``). Then one
/// `audit.resealed` entry (actor `system`) records the old chain's head and length, and whether
/// it verified, so that a head published before stays provable in the new chain. All in the
/// migration's one transaction; the update trigger is dropped for it and recreated.
extension PermissionSchema {
    static func sealedAudit(keyring: AuditKeyring?) -> Migration {
        Migration(id: "8-sealed-personal-fields", sql: sealedAuditSQL) { database, progress in
            guard let keyring else { preconditionFailure("the sealing migration runs with the store's audit keyring") }
            try reseal(database, keyring: keyring, progress: progress)
        }
    }

    private static let sealedAuditSQL = """
        ALTER TABLE audit ADD COLUMN personal TEXT;
        CREATE TABLE audit_subjects (
            user TEXT PRIMARY KEY NOT NULL,
            pseudonym TEXT NOT NULL UNIQUE,
            wrapped_key TEXT NOT NULL,
            created_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE audit_keyring (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            check_value TEXT NOT NULL
        ) STRICT;
        DROP TRIGGER audit_never_updated;
        """

    private static let restoreAuditTrigger = """
        CREATE TRIGGER audit_never_updated BEFORE UPDATE ON audit
            BEGIN SELECT RAISE(ABORT, 'audit entries are never updated'); END;
        """

    private static func reseal(_ database: Database, keyring: AuditKeyring, progress: Migration.Progress) throws {
        try database.withStatement("INSERT INTO audit_keyring (id, check_value) VALUES (1, ?1)") { statement in
            statement.bind(keyring.newCheckValue(), at: 1)
            try statement.execute()
        }
        let total = try database.withStatement("SELECT count(*) FROM audit") { try $0.step() ? $0.int64(at: 0) : 0 }
        guard total > 0 else { return try database.execute(restoreAuditTrigger) }

        let session = StoreSession(database: database)
        var resealing = AuditResealing(sealer: session.sealer(keyring))
        var done: Int64 = 0
        while true {
            var batch: [AuditRecord] = []
            try database.withStatement(
                "SELECT \(AuditRecord.selectList(.v1)) FROM audit WHERE seq > ? ORDER BY seq LIMIT ?"
            ) { statement in
                statement.bind(resealing.tip.seq, at: 1)
                statement.bind(Int64(backfillBatchSize), at: 2)
                while try statement.step() { batch.append(AuditRecord(row: statement, format: .v1)) }
            }
            guard !batch.isEmpty else { break }
            try database.withStatement(
                "UPDATE audit SET user = ?2, purpose = ?3, personal = ?4, prev_hash = ?5, hash = ?6, detail = ?7 WHERE seq = ?1"
            ) { statement in
                for old in batch {
                    let record = try resealing.reseal(old)
                    statement.reset()
                    statement.bind(record.seq, at: 1)
                    statement.bind(record.user, at: 2)
                    statement.bind(record.purpose, at: 3)
                    statement.bind(record.personal, at: 4)
                    statement.bind(record.prevHash, at: 5)
                    statement.bind(record.hash, at: 6)
                    statement.bind(record.detail, at: 7)
                    try statement.execute()
                }
            }
            done += Int64(batch.count)
            progress("audit resealing", done, total)
        }
        try database.execute(restoreAuditTrigger)
        try session.append(resealing.resealedEntry(total: total), after: resealing.tip, sealer: session.sealer(keyring))
    }
}
