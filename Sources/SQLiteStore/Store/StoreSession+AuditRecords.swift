import PermissionDomain

/// The audit log's stored records of one user, for an export: every hashed column as stored
/// (``AuditRecord/selectList``), so an export can be checked against the chain.
extension StoreSession {
    /// Records about `user` after `after`, in seq order; the read's snapshot, not limited to
    /// what the read cache shows (the caller compares with ``lastAuditSeq()``).
    /// The user's entries keep their pseudonym in `user` (their personal fields sealed); none
    /// are found once the user is erased.
    func auditRecords(user: UserID, after: Int64, limit: Int) throws -> [AuditRecord] {
        guard let pseudonym = try auditSubject(of: user.rawValue)?.pseudonym else { return [] }
        let sql = "SELECT \(AuditRecord.selectList) FROM audit WHERE user = ? AND seq > ? ORDER BY seq LIMIT ?"
        return try rows(sql) { statement in
            statement.bind(pseudonym, at: 1)
            statement.bind(after, at: 2)
            statement.bind(Self.limit(limit), at: 3)
        } decode: {
            AuditRecord(row: $0)
        }
    }

    /// The last record of the snapshot, nil for an empty log.
    func auditHead() throws -> AuditRecord? {
        try row("SELECT \(AuditRecord.selectList) FROM audit ORDER BY seq DESC LIMIT 1", bind: { _ in }) {
            AuditRecord(row: $0)
        }
    }
}
