import PermissionDomain

/// How many rows an export of one user holds, counted before any is read.
extension StoreSession {
    /// One statement, four bounded counts, each an index range: the authorizations' primary key
    /// and the location alerts' (both lead with `user`), `prompts_by_user`, and `audit_by_user`
    /// under the user's pseudonym (none once the user is erased, as ``auditRecords(user:after:limit:)``
    /// finds none). The `LIMIT` inside each count stops it after `limit` + 1 entries.
    private static let exportRowCount = """
        SELECT (SELECT count(*) FROM (SELECT 1 FROM authorizations WHERE user = ?1 LIMIT ?2))
            + (SELECT count(*) FROM (SELECT 1 FROM prompts WHERE user = ?1 LIMIT ?2))
            + (SELECT count(*) FROM (SELECT 1 FROM location_alerts WHERE user = ?1 LIMIT ?2))
            + (SELECT count(*) FROM (SELECT 1 FROM audit
                WHERE user = (SELECT pseudonym FROM audit_subjects WHERE user = ?1) LIMIT ?2))
        """

    func exportRowCount(user: UserID, upTo limit: Int) throws -> Int {
        try row(Self.exportRowCount) { statement in
            statement.bind(user.rawValue, at: 1)
            statement.bind(Int64(max(0, limit)) + 1, at: 2)
        } decode: {
            $0.int(at: 0)
        } ?? 0
    }
}
