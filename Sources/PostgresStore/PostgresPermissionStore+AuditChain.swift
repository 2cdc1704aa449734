public import PermissionDomain

/// `GET /v1/audit/verify`: checking the audit hash chain. The rule and the walk are the
/// domain's (``AuditChain``, ``AuditChainWalk``); the store reads the rows in batches, each in a
/// read transaction of its own, and hands them over.
extension PostgresPermissionStore: AuditChainVerifier {
    private static let count = PreparedStatement("SELECT count(*) FROM audit")
    private static let batch = PreparedStatement(
        "SELECT \(AuditRecord.selectList) FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2")

    private static let createdDetails = PreparedStatement(
        "SELECT detail FROM audit WHERE action = 'key.created' ORDER BY seq")

    /// The keys and the `key.created` details read as stored, in one read transaction: those
    /// entries name no user, so nothing is unsealed, and `audit verify` needs no audit key.
    public func unauditedKeys() throws -> [UnauditedKey] {
        try run(begin: Self.beginRead, lockHead: false) { session in
            let keys = try session.apiKeys().map {
                UnauditedKey.Row(id: $0.id, role: $0.role, app: $0.app, secretHash: $0.secretHash)
            }
            guard !keys.isEmpty else { return [] }
            let created = try session.rows(Self.createdDetails) { row in
                row.optionalString(at: 0).flatMap(DetailJSON.decode) ?? [:]
            }
            return UnauditedKey.find(keys: keys, created: created, fingerprint: keyFingerprint(ofSecretHash:))
        }
    }

    public func keyFingerprint(ofSecretHash secretHash: [UInt8]) -> String {
        AuditChain.sha256.keyFingerprint(ofSecretHash: secretHash)
    }

    public func verifyAuditChain(
        batchSize: Int, progress: (@Sendable (_ checked: Int64, _ total: Int64) -> Void)?
    )
        throws -> AuditChainReport
    {
        let total = try run(begin: Self.beginRead, lockHead: false) { session in
            try session.row(Self.count) { try $0.int64(at: 0) } ?? 0
        }
        return try AuditChain.sha256.verify(total: total, batchSize: batchSize, progress: progress) { after, limit in
            try run(begin: Self.beginRead, lockHead: false) { session in
                try session.rows(Self.batch, [.int64(after), .int64(limit)]) { try AuditRecord(row: $0) }
            }
        }
    }
}
