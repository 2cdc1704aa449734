public import PermissionDomain

/// `GET /v1/audit/verify` and `permission-server audit verify`: checking the audit hash chain
/// of a live store, or of a file opened read-only. The rule and the walk are the domain's
/// (``AuditChain``, ``AuditChainWalk``); the store reads the rows in batches and hands them over.
extension SQLitePermissionStore: AuditChainVerifier {
    /// Rows read per query when verifying, unless told otherwise.
    public static let defaultVerifyBatchSize = 2_000

    public func unauditedKeys() throws -> [UnauditedKey] {
        try Self.unauditedKeys(readers: pool.readers)
    }

    public func keyFingerprint(ofSecretHash secretHash: [UInt8]) -> String {
        AuditChain.sha256.keyFingerprint(ofSecretHash: secretHash)
    }

    public func verifyAuditChain(
        batchSize: Int, progress: (@Sendable (_ checked: Int64, _ total: Int64) -> Void)?
    )
        throws -> AuditChainReport
    {
        try Self.verifyAuditChain(readers: pool.readers, batchSize: batchSize, progress: progress)
    }

    /// Verifies the chain of the database file at `path` through read-only connections: it
    /// never migrates or writes the file, so it may run while a server serves it.
    /// - Parameters:
    ///   - path: an existing database file, migrated to at least `3-audit-hash-chain`.
    ///   - reading: `.shared`, or `.immutable` for a file on read-only storage
    ///     (``AuditFileReading/onReadOnlyStorage(after:path:)`` says when).
    ///   - batchSize: rows per query.
    ///   - progress: called after each batch with (rows checked, total rows).
    /// - Throws: ``SQLiteError`` when the file cannot be opened or read (``SQLiteError/isNotADatabase``
    ///   when it is no SQLite database); ``NotAnAuditDatabase`` when it has no audit hash chain;
    ///   ``MigrationError`` for a file this version cannot read the log of
    ///   (``checkVerifiable(applied:auditColumns:)``).
    public static func verifyAuditChain(
        path: String, reading: AuditFileReading = .shared, configuration: DatabaseConfiguration = .init(),
        batchSize: Int = defaultVerifyBatchSize, progress: (@Sendable (_ checked: Int64, _ total: Int64) -> Void)? = nil
    ) throws -> AuditChainReport {
        let readers = ReaderPool(path: path, mode: reading == .immutable ? .immutable : .readOnly, configuration: configuration)
        defer { readers.close() }
        let (columns, applied) = try readers.readLatest { database in
            let columns = try database.withStatement("SELECT name FROM pragma_table_info('audit')") { statement in
                var names: Set<String> = []
                while try statement.step() { names.insert(statement.string(at: 0) ?? "") }
                return names
            }
            return (columns, try PermissionSchema.migrations.appliedIDs(database))
        }
        guard columns.isSuperset(of: ["prev_hash", "hash"]) else { throw NotAnAuditDatabase() }
        try checkVerifiable(applied: applied, auditColumns: columns)
        return try verifyAuditChain(readers: readers, batchSize: batchSize, progress: progress)
    }

    /// Throws unless this program reads the audit log of a file with the migrations `applied`
    /// and the audit columns `auditColumns`: ``MigrationError/databaseNewerThanCode(unknownIDs:)``
    /// for a file a newer version migrated (its entries may hold what this version does not hash
    /// and report as a break), ``MigrationError/pending(ids:)`` for one from before the columns
    /// of the current entry format (`8-sealed-personal-fields`). A file missing only later
    /// migrations (a backup from the version before) is read as it is.
    static func checkVerifiable(applied: [String], auditColumns: Set<String>) throws {
        let known = knownMigrations
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { throw MigrationError.databaseNewerThanCode(unknownIDs: unknown) }
        guard auditColumns.isSuperset(of: AuditChain.Format.v2.columns + ["hash"]) else {
            throw MigrationError.pending(ids: known.filter { !applied.contains($0) })
        }
    }

    /// ``UnauditedKey/find(keys:created:fingerprint:)`` over the database file at `path`, read-only as
    /// ``verifyAuditChain(path:reading:configuration:batchSize:progress:)`` reads it: its keys
    /// and the details of its `key.created` entries (never sealed: they name no user, so no
    /// audit key is needed), in one read transaction; a serving store reads its own file the
    /// same way. A file from before the keys' table has none.
    public static func unauditedKeys(
        path: String, reading: AuditFileReading = .shared, configuration: DatabaseConfiguration = .init()
    ) throws -> [UnauditedKey] {
        let readers = ReaderPool(path: path, mode: reading == .immutable ? .immutable : .readOnly, configuration: configuration)
        defer { readers.close() }
        return try unauditedKeys(readers: readers)
    }

    /// The keys and the `key.created` details as stored, in one read transaction of `readers`.
    private static func unauditedKeys(readers: ReaderPool) throws -> [UnauditedKey] {
        try readers.readLatest { database in
            let hasKeys = try database.withStatement(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'api_keys'"
            ) { try $0.step() ? $0.int(at: 0) : 0 }
            guard hasKeys == 1 else { return [] }
            let keys = try database.withStatement("SELECT id, role, app, secret_hash FROM api_keys ORDER BY id") { statement in
                var rows: [UnauditedKey.Row] = []
                while try statement.step() {
                    guard let id = statement.string(at: 0).flatMap({ try? KeyID($0) }),
                        let role = statement.string(at: 1).flatMap(Role.init(rawValue:))
                    else { throw SQLiteError.corrupt("api_keys holds a row that is no key") }
                    let app = try statement.string(at: 2).map { try AppID($0) }
                    rows.append(.init(id: id, role: role, app: app, secretHash: statement.blob(at: 3) ?? []))
                }
                return rows
            }
            let created = try database.withStatement(
                "SELECT detail FROM audit WHERE action = 'key.created' ORDER BY seq"
            ) { statement in
                var details: [[String: String]] = []
                while try statement.step() {
                    details.append(statement.string(at: 0).flatMap(DetailJSON.decode) ?? [:])
                }
                return details
            }
            return UnauditedKey.find(keys: keys, created: created, fingerprint: AuditChain.sha256.keyFingerprint(ofSecretHash:))
        }
    }

    /// Feeds the audit log to an ``AuditChainWalk`` in seq order, `batchSize` rows per read
    /// transaction, until the chain breaks or the rows end.
    /// - Parameters:
    ///   - readers: read-only connections; nothing is written. Each batch starts a fresh read
    ///     transaction, so changes made to the file by other processes are seen.
    ///   - batchSize: rows per query.
    ///   - progress: called after each batch with (rows checked, total rows).
    private static func verifyAuditChain(
        readers: ReaderPool, batchSize: Int, progress: (@Sendable (_ checked: Int64, _ total: Int64) -> Void)?
    ) throws -> AuditChainReport {
        let total = try readers.readLatest { database in
            try database.withStatement("SELECT count(*) FROM audit") { try $0.step() ? $0.int64(at: 0) : 0 }
        }
        return try AuditChain.sha256.verify(total: total, batchSize: batchSize, progress: progress) { after, limit in
            try readers.readLatest { database in
                try database.withStatement(
                    "SELECT \(AuditRecord.selectList) FROM audit WHERE seq > ? ORDER BY seq LIMIT ?"
                ) { statement in
                    statement.bind(after, at: 1)
                    statement.bind(limit, at: 2)
                    var records: [AuditRecord] = []
                    while try statement.step() { records.append(AuditRecord(row: statement)) }
                    statement.reset()
                    return records
                }
            }
        }
    }
}
