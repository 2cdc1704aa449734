import AuditKeys
import PermissionDomain

/// Migration 3: the tamper-evident audit hash chain (the domain's ``AuditChain``) and the hash of the
/// purpose string a decision was made on (GDPR Art. 7(1)).
///
/// Adds `purpose_hash`, `prev_hash` and `hash` to `audit` and `purpose_hash` to
/// `authorizations` (https://www.sqlite.org/lang_altertable.html#alter_table_add_column), then
/// fills them for the rows written before, in seq order, in batches, reporting progress. The
/// append-only and version triggers are dropped for the backfill and recreated unchanged,
/// inside the migration's one transaction.
extension PermissionSchema {
    static let auditChain = Migration(id: "3-audit-hash-chain", sql: auditChainSQL, dataStep: backfill)

    /// Rows hashed per query during the backfill.
    static let backfillBatchSize = 1_000

    private static let auditChainSQL = """
        ALTER TABLE audit ADD COLUMN purpose_hash TEXT;
        ALTER TABLE audit ADD COLUMN prev_hash TEXT;
        ALTER TABLE audit ADD COLUMN hash TEXT;
        ALTER TABLE authorizations ADD COLUMN purpose_hash TEXT;
        DROP TRIGGER audit_never_updated;
        DROP TRIGGER authorizations_version_grows;
        """

    private static let restoreTriggers = """
        CREATE TRIGGER authorizations_version_grows BEFORE UPDATE ON authorizations
            WHEN NEW.version <= OLD.version
            BEGIN SELECT RAISE(ABORT, 'authorization version must grow'); END;
        CREATE TRIGGER audit_never_updated BEFORE UPDATE ON audit
            BEGIN SELECT RAISE(ABORT, 'audit entries are never updated'); END;
        """

    private static func backfill(_ database: Database, _ progress: Migration.Progress) throws {
        let total = try database.withStatement("SELECT count(*) FROM audit") { statement in
            try statement.step() ? statement.int64(at: 0) : 0
        }
        let chain = AuditChain.sha256V1
        var last: Int64 = 0
        var previous = AuditChain.genesis
        var done: Int64 = 0
        while true {
            var updates: [AuditRecord] = []
            try database.withStatement(
                "SELECT \(AuditRecord.selectList(.v1)) FROM audit WHERE seq > ? ORDER BY seq LIMIT ?"
            ) { statement in
                statement.bind(last, at: 1)
                statement.bind(Int64(backfillBatchSize), at: 2)
                while try statement.step() {
                    var record = AuditRecord(row: statement, format: .v1)
                    record.purposeHash = record.purpose.map(chain.purposeHash(of:))
                    record.prevHash = previous
                    record.hash = chain.hash(of: record)
                    updates.append(record)
                    previous = AuditChainTip(linking: record).hash
                }
            }
            guard let lastRow = updates.last else { break }
            try database.withStatement(
                "UPDATE audit SET purpose_hash = ?2, prev_hash = ?3, hash = ?4 WHERE seq = ?1"
            ) { statement in
                for update in updates {
                    statement.reset()
                    statement.bind(update.seq, at: 1)
                    statement.bind(update.purposeHash, at: 2)
                    statement.bind(update.prevHash, at: 3)
                    statement.bind(update.hash, at: 4)
                    try statement.execute()
                }
            }
            last = lastRow.seq
            done += Int64(updates.count)
            progress("audit hash chain backfill", done, total)
        }
        try backfillAuthorizations(database)
        try database.execute(restoreTriggers)
    }

    /// `authorizations.purpose_hash` for records that keep a purpose string.
    private static func backfillAuthorizations(_ database: Database) throws {
        var purposes: [String] = []
        try database.withStatement("SELECT DISTINCT purpose FROM authorizations WHERE purpose IS NOT NULL") { statement in
            while try statement.step() { if let purpose = statement.string(at: 0) { purposes.append(purpose) } }
        }
        try database.withStatement("UPDATE authorizations SET purpose_hash = ?2 WHERE purpose = ?1") { statement in
            for purpose in purposes {
                statement.reset()
                statement.bind(purpose, at: 1)
                statement.bind(AuditChain.sha256.purposeHash(of: purpose), at: 2)
                try statement.execute()
            }
        }
    }
}
