import AuditKeys
import Foundation
import PermissionDomain

extension PostgresSchema {
    /// Migration 6: personal fields of the audit log sealed under a key per user, as SQLite's
    /// `8-sealed-personal-fields` (SPEC §11 Erasure, §12): `audit.personal`, the per-user key
    /// table `audit_subjects`, the server key's check value in `audit_keyring`, and an existing
    /// log resealed, rehashed in the current format and followed by one `audit.resealed` entry
    /// that records the old chain's head. In the migration's one transaction, under the
    /// migrations' advisory lock and the chain head's row lock.
    static func sealedAudit(keyring: AuditKeyring?) -> PostgresMigration {
        PostgresMigration(id: "6-sealed-personal-fields", sql: sealedAuditSQL) { connection in
            guard let keyring else { preconditionFailure("the sealing migration runs with the store's audit keyring") }
            try reseal(connection, keyring: keyring)
        }
    }

    private static let sealedAuditSQL = """
        ALTER TABLE audit ADD COLUMN personal text;
        CREATE TABLE audit_subjects (
            user_id text COLLATE "C" PRIMARY KEY,
            pseudonym text COLLATE "C" NOT NULL UNIQUE,
            wrapped_key text NOT NULL,
            created_at bigint NOT NULL
        );
        CREATE TABLE audit_keyring (
            id integer PRIMARY KEY CHECK (id = 1),
            check_value text NOT NULL
        );
        """

    /// Rows resealed per query.
    static let resealBatchSize = 1_000

    private static let insertCheck = PreparedStatement("INSERT INTO audit_keyring (id, check_value) VALUES (1, $1)")
    private static let count = PreparedStatement("SELECT count(*) FROM audit")
    private static let batchV1 = PreparedStatement(
        "SELECT \(AuditRecord.selectList(.v1)) FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2")
    private static let update = PreparedStatement(
        """
        UPDATE audit SET user_id = $2, purpose = $3, personal = $4, prev_hash = $5, hash = $6, detail = $7 WHERE seq = $1
        """)

    private static func reseal(_ connection: PostgresConnection, keyring: AuditKeyring) throws {
        try connection.execute(insertCheck, [.text(keyring.newCheckValue())])
        let session = PostgresSession(connection: connection, keyring: keyring)
        _ = try session.lockAuditChainHead()
        let total = try session.row(count) { try $0.int64(at: 0) } ?? 0
        guard total > 0 else { return }
        try connection.execute("ALTER TABLE audit DISABLE TRIGGER audit_never_updated")
        var resealing = AuditResealing(sealer: session.sealer(keyring))
        while true {
            let batch = try session.rows(batchV1, [.int64(resealing.tip.seq), .int64(Int64(resealBatchSize))]) {
                try AuditRecord(row: $0, format: .v1)
            }
            guard !batch.isEmpty else { break }
            for old in batch {
                let record = try resealing.reseal(old)
                try connection.execute(
                    update,
                    [
                        .int64(record.seq), .optional(record.user), .optional(record.purpose), .optional(record.personal),
                        .optional(record.prevHash), .optional(record.hash), .optional(record.detail),
                    ])
            }
        }
        try connection.execute("ALTER TABLE audit ENABLE TRIGGER audit_never_updated")
        try session.moveAuditChainHead(to: resealing.tip)
        try session.append(resealing.resealedEntry(total: total))
    }
}
