/// A store whose audit log is a hash chain that can be checked (SQLite's store; tests' memory
/// stores need not be). The API offers `GET /v1/audit/verify` when its store is one.
public protocol AuditChainVerifier: Sendable {
    /// Walks the whole audit log in seq order, `batchSize` entries per read, and reports the
    /// intact length and the first failing entry.
    /// - Parameters:
    ///   - batchSize: entries read per query (bounded memory, short read transactions).
    ///   - progress: called after each batch with (entries checked so far, total entries).
    func verifyAuditChain(
        batchSize: Int, progress: (@Sendable (_ checked: Int64, _ total: Int64) -> Void)?
    ) throws
        -> AuditChainReport

    /// The API keys the audit log does not account for (``UnauditedKey/find(keys:created:fingerprint:)``):
    /// keys written around the service, which the chain cannot show.
    func unauditedKeys() throws -> [UnauditedKey]
}
