import AuditKeys
import Foundation
import PermissionDomain
import StoredRows

/// The audit log (SPEC §5): gap-free `seq`, append only (the schema's triggers refuse UPDATE,
/// DELETE and a seq that is not the last + 1), hash-chained (``AuditChain``), filtered keyset
/// queries. Entries about a user keep their personal fields sealed under the user's key
/// (``AuditKeyring``); reads open them while the key exists.
extension StoreSession {
    private static let columns = """
        seq, at, actor_key, actor_role, action, user, app, service, \
        from_status, from_level, from_provisional, from_once, to_status, to_level, to_provisional, to_once, \
        reason, purpose, prompt_id, request_id, detail, purpose_hash, prev_hash, hash, personal
        """

    private static let insert = StatementSlot(
        """
        INSERT INTO audit (\(columns))
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,
                ?22, ?23, ?24, ?25)
        """)
    /// ``columns``, then the wrapped key of the entry's user (NULL once erased).
    static let readColumns =
        columns + """
            , (SELECT wrapped_key FROM audit_subjects WHERE pseudonym = audit.user)
            """

    /// The last entry's seq; for a reader with a read cache, at most ``ReadCache/visibleAuditSeq``.
    func lastAuditSeq() throws -> Int64 {
        let visible = shared?.cache?.visibleAuditSeq  // before the query: it only grows
        let last = try database.lastAuditSeq()
        guard let visible else { return last }
        return min(last, visible)
    }

    /// The last entry's seq and hash, read from the file (``AuditChainTip/empty`` for an empty log).
    func loadAuditChainTip() throws -> AuditChainTip {
        let tip = try row("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1", bind: { _ in }) { statement in
            AuditChainTip(seq: statement.int64(at: 0), hash: try statement.requiredString(at: 1, "audit", "hash"))
        }
        return tip ?? .empty
    }

    /// Appends `entry` as the next seq, chained to the last entry by the domain's rule
    /// (``AuditChain/record(for:after:)``); the store only persists the record.
    ///
    /// The writer keeps the chain tip (``AuditChainTipCache``), so an append reads nothing. The
    /// schema's trigger still refuses a seq that is not the last + 1: if another process
    /// appended to the file since (a subcommand), the insert fails, and the tip is read again
    /// and the insert retried once. Before that, the entry the writer knew is looked up: gone or
    /// changed, the log was edited around its triggers (``AuditChainTipCache/witness(_:in:)``).
    @discardableResult
    func append(_ entry: AuditEntry) throws -> Int64 {
        let cache = shared?.auditChainTip
        if let cached = cache?.tip {
            do {
                return try append(entry, after: cached)
            } catch let error as SQLiteError where error.isConstraintViolation {
                cache?.tip = nil
                cache?.witness(cached, in: self)
            }
        }
        return try append(entry, after: try loadAuditChainTip())
    }

    private func append(_ entry: AuditEntry, after tip: AuditChainTip) throws -> Int64 {
        try append(entry, after: tip, sealer: sealer(keyring))
    }

    /// Appends `entry` after `tip`, its personal fields sealed by `sealer` (also the migration
    /// that reseals an old log, which has no store around it).
    @discardableResult
    func append(_ entry: AuditEntry, after tip: AuditChainTip, sealer: SubjectSealer) throws -> Int64 {
        let record = try AuditChain.sha256.record(for: entry, after: tip, sealer: sealer)
        try run(Self.insert) { statement in
            statement.bind(record.seq, at: 1)
            statement.bind(record.at, at: 2)
            statement.bind(record.actorKey, at: 3)
            statement.bind(record.actorRole, at: 4)
            statement.bind(record.action, at: 5)
            statement.bind(record.user, at: 6)
            statement.bind(record.app, at: 7)
            statement.bind(record.service, at: 8)
            statement.bind(record.fromStatus, at: 9)
            statement.bind(record.fromLevel, at: 10)
            statement.bind(record.fromProvisional, at: 11)
            statement.bind(record.fromOnce, at: 12)
            statement.bind(record.toStatus, at: 13)
            statement.bind(record.toLevel, at: 14)
            statement.bind(record.toProvisional, at: 15)
            statement.bind(record.toOnce, at: 16)
            statement.bind(record.reason, at: 17)
            statement.bind(record.purpose, at: 18)
            statement.bind(record.promptId, at: 19)
            statement.bind(record.requestId, at: 20)
            statement.bind(record.detail, at: 21)
            statement.bind(record.purposeHash, at: 22)
            statement.bind(record.prevHash, at: 23)
            statement.bind(record.hash, at: 24)
            statement.bind(record.personal, at: 25)
        }
        shared?.auditChainTip?.tip = AuditChainTip(linking: record)
        return record.seq
    }

    /// The entries `query` selects (``AuditQuerySQL``, an app's own feed included); for a
    /// reader with a read cache, only those up to ``ReadCache/visibleAuditSeq``: an entry is
    /// read (by the event feed, `GET /v1/audit`) only once the cache no longer holds what its
    /// transaction changed.
    func audit(query: AuditQuery) throws -> [AuditEntry] {
        let visible = shared?.cache?.visibleAuditSeq  // before the query: it only grows
        var pseudonym: String?
        if let user = query.user {
            // The user's entries keep their pseudonym; none are readable without their key.
            pseudonym = try auditSubject(of: user.rawValue)?.pseudonym
        }
        let (sql, values) = Self.auditStatement(query, pseudonym: pseudonym, through: visible)
        let keyring = keyring
        return try rows(sql) {
            $0.bind(values)
        } decode: {
            try AuditEntry(storedColumns: $0, keyring: keyring)
        }
    }

    /// The statement of ``audit(query:)`` and its parameters (``AuditQuerySQL``), selecting
    /// `select`. `ListingQueryPlanTests` checks its plans.
    /// - Parameters:
    ///   - pseudonym: the pseudonym of the query's user (nil when the log has none for them).
    ///   - through: the last seq to show, nil for all.
    static func auditStatement(
        _ query: AuditQuery, pseudonym: String?, through: Int64?, select: String = readColumns
    ) -> (String, [SQLValue]) {
        let user: AuditQuerySQL.UserFilter =
            query.user == nil ? .none : pseudonym.map(AuditQuerySQL.UserFilter.pseudonym) ?? .unknown
        let built = AuditQuerySQL(query: query, user: user, through: through, select: select, dialect: .sqlite)
        let values = built.values.map { value -> SQLValue in
            switch value {
            case .text(let text): .text(text)
            case .integer(let integer): .integer(integer)
            }
        }
        return (built.sql, values)
    }
}

extension Database {
    private static let lastAuditSeq = StatementSlot("SELECT coalesce(max(seq), 0) FROM audit")

    /// The audit log's last seq, 0 for an empty log: one descent of its primary key. Sessions
    /// read it through ``StoreSession/lastAuditSeq()``, which a read cache may bound.
    func lastAuditSeq() throws -> Int64 {
        try withStatement(Self.lastAuditSeq) { try $0.step() ? $0.int64(at: 0) : 0 }
    }
}
