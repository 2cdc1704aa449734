import PermissionDomain

extension StoreSession {
    private static let auditHashSlot = StatementSlot("SELECT hash FROM audit WHERE seq = ?")

    /// The stored hash of entry `seq` in the read's snapshot (the primary key's lookup), nil
    /// when there is none.
    func auditHash(seq: Int64) throws -> String? {
        let hash: String?? = try row(Self.auditHashSlot, bind: { $0.bind(seq, at: 1) }) { $0.string(at: 0) }
        return hash ?? nil
    }
}
