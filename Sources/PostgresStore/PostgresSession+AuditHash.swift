import PermissionDomain

extension PostgresSession {
    private static let auditHash = PreparedStatement("SELECT hash FROM audit WHERE seq = $1")

    /// The stored hash of entry `seq` in the transaction's snapshot (the primary key's lookup),
    /// nil when there is none.
    func auditHash(seq: Int64) throws -> String? {
        try row(Self.auditHash, [.int64(seq)]) { try $0.string(at: 0) }
    }
}
