import Foundation
import PermissionDomain

/// The audit log (SPEC §5): gap-free `seq`, append only (the schema's triggers refuse UPDATE,
/// DELETE and a seq that is not the last + 1), hash-chained (``AuditChain``), filtered keyset
/// queries.
extension StoreSession {
    private static let columns = """
        seq, at, actor_key, actor_role, action, user, app, service, \
        from_status, from_level, from_provisional, from_once, to_status, to_level, to_provisional, to_once, \
        reason, purpose, prompt_id, request_id, detail, purpose_hash, prev_hash, hash
        """

    /// The last entry's seq; for a reader with a read cache, at most ``ReadCache/visibleAuditSeq``.
    func lastAuditSeq() throws -> Int64 {
        let visible = shared?.cache?.visibleAuditSeq  // before the query: it only grows
        let last = try row("SELECT coalesce(max(seq), 0) FROM audit", bind: { _ in }) { $0.int64(at: 0) } ?? 0
        guard let visible else { return last }
        return min(last, visible)
    }

    /// The last entry's seq and hash, read from the file (genesis for an empty log).
    func loadAuditChainTip() throws -> AuditChain.Tip {
        let tip = try row("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1", bind: { _ in }) { statement in
            AuditChain.Tip(seq: statement.int64(at: 0), hash: try statement.requiredString(at: 1, "audit", "hash"))
        }
        return tip ?? AuditChain.Tip(seq: 0, hash: AuditChain.genesis)
    }

    /// Appends `entry` as the next seq, chained to the last entry (``AuditChain``).
    ///
    /// The writer keeps the chain tip, so an append reads nothing. The schema's trigger still
    /// refuses a seq that is not the last + 1: if another process appended to the file since
    /// (a subcommand), the insert fails, and the tip is read again and the insert retried once.
    @discardableResult
    func append(_ entry: AuditEntry) throws -> Int64 {
        if let cached = database.auditChainTip {
            do {
                return try append(entry, after: cached)
            } catch let error as SQLiteError where error.isConstraintViolation {
                database.auditChainTip = nil
            }
        }
        return try append(entry, after: try loadAuditChainTip())
    }

    private func append(_ entry: AuditEntry, after tip: AuditChain.Tip) throws -> Int64 {
        let seq = tip.seq + 1
        let at = entry.at.millisecondsSince1970
        let detail = DetailJSON.encode(entry.detail)
        let purposeHash = entry.purpose.map { AuditChain.hexSHA256($0.rawValue) }
        var encoder = AuditChain.Encoder()
        encoder.add(seq)
        encoder.add(at)
        encoder.add(entry.actor.keyId)
        encoder.add(entry.actor.role)
        encoder.add(entry.action.rawValue)
        encoder.add(entry.user?.rawValue)
        encoder.add(entry.app?.rawValue)
        encoder.add(entry.service?.rawValue)
        for snapshot in [entry.from, entry.to] {
            encoder.add(snapshot?.status.rawValue)
            encoder.add(snapshot?.level?.rawValue)
            encoder.add(snapshot?.provisional)
            encoder.add(snapshot?.once)
        }
        encoder.add(entry.reason?.rawValue)
        encoder.add(entry.purpose?.rawValue)
        encoder.add(purposeHash)
        encoder.add(entry.promptId?.rawValue)
        encoder.add(entry.requestId)
        encoder.add(detail)
        encoder.add(tip.hash)
        let hash = encoder.hash()
        let sql = """
            INSERT INTO audit (\(Self.columns))
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,
                    ?22, ?23, ?24)
            """
        try run(sql) { statement in
            statement.bind(seq, at: 1)
            statement.bind(at, at: 2)
            statement.bind(entry.actor.keyId, at: 3)
            statement.bind(entry.actor.role, at: 4)
            statement.bind(entry.action.rawValue, at: 5)
            statement.bind(entry.user?.rawValue, at: 6)
            statement.bind(entry.app?.rawValue, at: 7)
            statement.bind(entry.service?.rawValue, at: 8)
            Self.bind(entry.from, at: 9, statement)
            Self.bind(entry.to, at: 13, statement)
            statement.bind(entry.reason?.rawValue, at: 17)
            statement.bind(entry.purpose?.rawValue, at: 18)
            statement.bind(entry.promptId?.rawValue, at: 19)
            statement.bind(entry.requestId, at: 20)
            statement.bind(detail, at: 21)
            statement.bind(purposeHash, at: 22)
            statement.bind(tip.hash, at: 23)
            statement.bind(hash, at: 24)
        }
        database.auditChainTip = AuditChain.Tip(seq: seq, hash: hash)
        return seq
    }

    /// The entries `query` selects; for a reader with a read cache, only those up to
    /// ``ReadCache/visibleAuditSeq``: an entry is read (by the event feed, `GET /v1/audit`) only
    /// once the cache no longer holds what its transaction changed.
    func audit(query: AuditQuery) throws -> [AuditEntry] {
        var clause = WhereClause()
        clause.add("seq > ?", [.integer(query.after)])
        if let visible = shared?.cache?.visibleAuditSeq { clause.add("seq <= ?", [.integer(visible)]) }
        clause.equal("user", query.user?.rawValue)
        clause.equal("app", query.app?.rawValue)
        clause.equal("service", query.service?.rawValue)
        clause.equal("action", query.action?.rawValue)
        // Time bounds filter a scan in seq order (`+at` keeps SQLite from sorting a whole time
        // range by seq for every page); `at` follows seq, as writes are serialized.
        if let since = query.since { clause.add("+at >= ?", [.integer(since.millisecondsSince1970)]) }
        if let until = query.until { clause.add("+at < ?", [.integer(until.millisecondsSince1970)]) }
        let values = clause.values + [.integer(Self.limit(query.limit))]
        let sql = "SELECT \(Self.columns) FROM audit \(clause.sql) ORDER BY seq LIMIT ?"
        return try rows(sql) { $0.bind(values) } decode: { try Self.decodeEntry($0) }
    }

    private static func bind(_ snapshot: AuthorizationSnapshot?, at index: Int32, _ statement: Statement) {
        guard let snapshot else {
            for offset in Int32(0)..<4 { statement.bindNull(at: index + offset) }
            return
        }
        statement.bind(snapshot.status.rawValue, at: index)
        statement.bind(snapshot.level?.rawValue, at: index + 1)
        statement.bind(snapshot.provisional, at: index + 2)
        statement.bind(snapshot.once, at: index + 3)
    }

    private static func decodeSnapshot(_ statement: Statement, at index: Int32, _ column: String) throws
        -> AuthorizationSnapshot?
    {
        guard !statement.isNull(at: index) else { return nil }
        return AuthorizationSnapshot(
            status: try statement.enumeration(AuthorizationStatus.self, at: index, "audit", column),
            level: statement.string(at: index + 1).map(Level.init(trusted:)),
            provisional: statement.bool(at: index + 2),
            once: statement.bool(at: index + 3))
    }

    private static func decodeEntry(_ statement: Statement) throws -> AuditEntry {
        var reason: Reason?
        if !statement.isNull(at: 16) { reason = try statement.enumeration(Reason.self, at: 16, "audit", "reason") }
        var detail: [String: String] = [:]
        if let text = statement.string(at: 20) {
            guard let decoded = DetailJSON.decode(text) else { throw corrupt("audit", "detail") }
            detail = decoded
        }
        return AuditEntry(
            seq: statement.int64(at: 0),
            at: statement.date(at: 1) ?? Date(millisecondsSince1970: 0),
            actor: Actor(keyId: statement.string(at: 2), role: try statement.requiredString(at: 3, "audit", "actor_role")),
            action: AuditAction(try statement.requiredString(at: 4, "audit", "action")),
            user: statement.string(at: 5).map(UserID.init(trusted:)),
            app: statement.string(at: 6).map(AppID.init(trusted:)),
            service: statement.string(at: 7).map(ServiceID.init(trusted:)),
            from: try decodeSnapshot(statement, at: 8, "from_status"),
            to: try decodeSnapshot(statement, at: 12, "to_status"),
            reason: reason,
            purpose: statement.string(at: 17).map(PurposeString.init(trusted:)),
            promptId: statement.string(at: 18).map(PromptID.init(trusted:)),
            requestId: statement.string(at: 19),
            detail: detail,
            purposeHash: statement.string(at: 21),
            prevHash: statement.string(at: 22),
            hash: statement.string(at: 23))
    }
}
