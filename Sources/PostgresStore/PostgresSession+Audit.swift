import AuditKeys
import Foundation
package import PermissionDomain
import StoredRows

/// The audit log (SPEC §5): gap-free `seq`, append only (the schema's triggers refuse UPDATE,
/// DELETE, TRUNCATE and a seq that is not the last + 1), hash-chained (``AuditChain``) through
/// the chain head row, filtered keyset queries.
extension PostgresSession {
    private static let columns = """
        seq, at, actor_key, actor_role, action, user_id, app, service, \
        from_status, from_level, from_provisional, from_once, to_status, to_level, to_provisional, to_once, \
        reason, purpose, prompt_id, request_id, detail, purpose_hash, prev_hash, hash, personal
        """
    /// ``columns``, then the wrapped key of the entry's user (NULL once erased).
    private static let readColumns =
        columns + """
            , (SELECT s.wrapped_key FROM audit_subjects s WHERE s.pseudonym = audit.user_id)
            """

    private static let lastSeq = PreparedStatement("SELECT coalesce(max(seq), 0) FROM audit")
    /// The chain head, locked until the transaction ends: writers (and so appends) take turns.
    static let lockHead = PreparedStatement("SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE")
    private static let updateHead = PreparedStatement("UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1")
    private static let insert = PreparedStatement(
        """
        INSERT INTO audit (\(columns))
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
                $22, $23, $24, $25)
        """)

    func lastAuditSeq() throws -> Int64 {
        try row(Self.lastSeq) { try $0.int64(at: 0) } ?? 0
    }

    /// Locks the chain head row and returns it (``AuditChainTip/empty`` for an empty log).
    func lockAuditChainHead() throws -> AuditChainTip {
        guard let tip = try row(Self.lockHead, decode: { AuditChainTip(seq: try $0.int64(at: 0), hash: try $0.string(at: 1)) })
        else { throw Self.corrupt("audit_head", "id") }
        return tip
    }

    /// Appends `entry` as the head's seq + 1, chained to the head's hash by the domain's rule
    /// (``AuditChain/record(for:after:)``), and moves the head, all under the head's row lock.
    @discardableResult
    func append(_ entry: AuditEntry) throws -> Int64 {
        let record = try AuditChain.sha256.record(
            for: entry, after: try lockAuditChainHead(), sealer: sealer(requiredKeyring))
        try insertAuditRecord(record)
        try moveAuditChainHead(to: AuditChainTip(linking: record))
        changes?.appended(
            ChangeLogEntry(seq: record.seq, action: entry.action, user: entry.user, app: entry.app, service: entry.service))
        return record.seq
    }

    /// Inserts `record` with every column as given (the schema's trigger still refuses a seq
    /// that is not the last + 1). Callers hold the head's lock and move the head after it.
    func insertAuditRecord(_ record: AuditRecord) throws {
        try run(
            Self.insert,
            [
                .int64(record.seq), .int64(record.at), .optional(record.actorKey), .optional(record.actorRole),
                .optional(record.action), .optional(record.user), .optional(record.app), .optional(record.service),
                .optional(record.fromStatus), .optional(record.fromLevel), .optional(record.fromProvisional),
                .optional(record.fromOnce), .optional(record.toStatus), .optional(record.toLevel),
                .optional(record.toProvisional), .optional(record.toOnce), .optional(record.reason),
                .optional(record.purpose), .optional(record.promptId), .optional(record.requestId),
                .optional(record.detail), .optional(record.purposeHash), .optional(record.prevHash), .optional(record.hash),
                .optional(record.personal),
            ])
    }

    /// Sets the chain head row to `tip`.
    func moveAuditChainHead(to tip: AuditChainTip) throws {
        try run(Self.updateHead, [.int64(tip.seq), .text(tip.hash)])
    }

    func audit(query: AuditQuery) throws -> [AuditEntry] {
        try audit(query: query, through: nil)
    }

    /// ``audit(query:)`` up to `last` at most: a replica shows the entries whose changes its
    /// read model has applied (``PostgresReadModel``). The SQL is SQLite's (``AuditQuerySQL``).
    func audit(query: AuditQuery, through last: Int64?) throws -> [AuditEntry] {
        var pseudonym: String?
        if let user = query.user {
            // The user's entries keep their pseudonym; none are readable without their key.
            pseudonym = try auditSubject(of: user.rawValue)?.pseudonym
        }
        let (sql, values) = PostgresPermissionStore.auditStatement(
            query, pseudonym: pseudonym, through: last, select: Self.readColumns)
        let keyring = requiredKeyring
        return try rows(.cached(sql), values) {
            try AuditEntry(storedColumns: $0, keyring: keyring)
        }
    }
}

extension PostgresPermissionStore {
    /// The statement of an audit query (``AuditQuerySQL``, its `?`s numbered `$1`, `$2`, ...;
    /// none is inside a literal) and its parameters. `PostgresAuditPlanTests` checks its plans.
    /// - Parameters:
    ///   - pseudonym: the pseudonym of the query's user (nil when the log has none for them).
    ///   - through: the last seq to show, nil for all.
    ///   - select: the select list, over the table `audit`.
    package static func auditStatement(
        _ query: AuditQuery, pseudonym: String?, through: Int64?, select: String = "audit.seq"
    ) -> (sql: String, values: [PostgresValue]) {
        let user: AuditQuerySQL.UserFilter =
            query.user == nil ? .none : pseudonym.map(AuditQuerySQL.UserFilter.pseudonym) ?? .unknown
        let built = AuditQuerySQL(query: query, user: user, through: through, select: select, dialect: .postgres)
        var sql = ""
        var number = 0
        for character in built.sql {
            if character == "?" {
                number += 1
                sql += "$\(number)"
            } else {
                sql.append(character)
            }
        }
        precondition(number == built.values.count, "\(number) placeholders for \(built.values.count) values")
        let values = built.values.map { value -> PostgresValue in
            switch value {
            case .text(let text): .text(text)
            case .integer(let integer): .int64(integer)
            }
        }
        return (sql, values)
    }
}
