import PermissionDomain

/// How many rows an export of one user holds, counted before any is read.
extension PostgresSession {
    /// One statement, four bounded counts, each an index range: the authorizations' primary key
    /// and the location alerts' (both lead with `user_id`), `prompts_by_user`, and
    /// `audit_by_user` under the user's pseudonym (none once the user is erased, as
    /// ``auditRecords(user:after:limit:)`` finds none). The `LIMIT` inside each count stops it
    /// after `limit` + 1 entries.
    private static let exportRowCount = PreparedStatement(
        """
        SELECT (SELECT count(*) FROM (SELECT 1 FROM authorizations WHERE user_id = $1 LIMIT $2) AS a)
            + (SELECT count(*) FROM (SELECT 1 FROM prompts WHERE user_id = $1 LIMIT $2) AS p)
            + (SELECT count(*) FROM (SELECT 1 FROM location_alerts WHERE user_id = $1 LIMIT $2) AS l)
            + (SELECT count(*) FROM (SELECT 1 FROM audit
                WHERE user_id = (SELECT pseudonym FROM audit_subjects WHERE user_id = $1) LIMIT $2) AS e)
        """)

    func exportRowCount(user: UserID, upTo limit: Int) throws -> Int {
        let count = try row(Self.exportRowCount, [.text(user.rawValue), .int64(Int64(max(0, limit)) + 1)]) {
            try $0.int64(at: 0)
        }
        return Int(count ?? 0)
    }
}
