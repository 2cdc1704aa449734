import PermissionDomain

/// The audit log's stored records of one user, for an export: every hashed column as stored
/// (``AuditRecord/selectList``), so an export can be checked against the chain.
extension PostgresSession {
    private static let userRecords = PreparedStatement(
        "SELECT \(AuditRecord.selectList) FROM audit WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3")
    private static let head = PreparedStatement(
        "SELECT \(AuditRecord.selectList) FROM audit ORDER BY seq DESC LIMIT 1")

    /// Records about `user` after `after`, in seq order, from the transaction's snapshot.
    /// The user's entries keep their pseudonym in `user_id` (their personal fields sealed); none
    /// are found once the user is erased.
    func auditRecords(user: UserID, after: Int64, limit: Int) throws -> [AuditRecord] {
        guard let pseudonym = try auditSubject(of: user.rawValue)?.pseudonym else { return [] }
        return try rows(Self.userRecords, [.text(pseudonym), .int64(after), Self.limit(limit)]) { try AuditRecord(row: $0) }
    }

    /// The last record of the snapshot, nil for an empty log.
    func auditHead() throws -> AuditRecord? {
        try row(Self.head) { try AuditRecord(row: $0) }
    }
}
