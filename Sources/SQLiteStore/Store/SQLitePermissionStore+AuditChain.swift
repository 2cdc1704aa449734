public import PermissionDomain

/// `GET /v1/audit/verify` and `permission-server audit verify`: checking the audit hash chain
/// (``AuditChain``) of a live store, or of a file opened read-only.
extension SQLitePermissionStore: AuditChainVerifier {
    /// Rows read per query when verifying, unless told otherwise.
    public static let defaultVerifyBatchSize = 2_000

    public func verifyAuditChain(batchSize: Int, progress: (@Sendable (_ checked: Int64, _ total: Int64) -> Void)?)
        throws -> AuditChainReport
    {
        try AuditChain.verify(readers: pool.readers, batchSize: batchSize, progress: progress)
    }

    /// Verifies the chain of the database file at `path` through read-only connections: it
    /// never migrates or writes the file, so it may run while a server serves it.
    /// - Parameters:
    ///   - path: an existing database file, migrated to at least `3-audit-hash-chain`.
    ///   - batchSize: rows per query.
    ///   - progress: called after each batch with (rows checked, total rows).
    /// - Throws: ``SQLiteError`` when the file cannot be opened or lacks the chain columns.
    public static func verifyAuditChain(
        path: String, configuration: DatabaseConfiguration = .init(), batchSize: Int = defaultVerifyBatchSize,
        progress: (@Sendable (_ checked: Int64, _ total: Int64) -> Void)? = nil
    ) throws -> AuditChainReport {
        let readers = ReaderPool(path: path, configuration: configuration)
        return try AuditChain.verify(readers: readers, batchSize: batchSize, progress: progress)
    }
}
