import Foundation
import PermissionDomain

/// The audit log (SPEC §5): gap-free `seq`, append only (the schema's triggers refuse UPDATE,
/// DELETE and a seq that is not the last + 1), filtered keyset queries.
extension StoreSession {
    private static let columns = """
        seq, at, actor_key, actor_role, action, user, app, service, \
        from_status, from_level, from_provisional, from_once, to_status, to_level, to_provisional, to_once, \
        reason, purpose, prompt_id, request_id, detail
        """

    func lastAuditSeq() throws -> Int64 {
        try row("SELECT coalesce(max(seq), 0) FROM audit", bind: { _ in }) { $0.int64(at: 0) } ?? 0
    }

    @discardableResult
    func append(_ entry: AuditEntry) throws -> Int64 {
        // max(seq) on the INTEGER PRIMARY KEY is one b-tree descent. Inside the write
        // transaction no one else appends, and a rolled-back body takes its seq with it, so the
        // sequence has no gaps (unlike AUTOINCREMENT, https://www.sqlite.org/autoinc.html).
        let sql = """
            INSERT INTO audit (\(Self.columns))
            VALUES ((SELECT coalesce(max(seq), 0) + 1 FROM audit), ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,
                    ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
            RETURNING seq
            """
        let seq = try row(sql) { statement in
            statement.bind(entry.at.millisecondsSince1970, at: 1)
            statement.bind(entry.actor.keyId, at: 2)
            statement.bind(entry.actor.role, at: 3)
            statement.bind(entry.action.rawValue, at: 4)
            statement.bind(entry.user?.rawValue, at: 5)
            statement.bind(entry.app?.rawValue, at: 6)
            statement.bind(entry.service?.rawValue, at: 7)
            Self.bind(entry.from, at: 8, statement)
            Self.bind(entry.to, at: 12, statement)
            statement.bind(entry.reason?.rawValue, at: 16)
            statement.bind(entry.purpose?.rawValue, at: 17)
            statement.bind(entry.promptId?.rawValue, at: 18)
            statement.bind(entry.requestId, at: 19)
            statement.bind(DetailJSON.encode(entry.detail), at: 20)
        } decode: { $0.int64(at: 0) }
        guard let seq else { throw Self.corrupt("audit", "seq") }
        return seq
    }

    func audit(query: AuditQuery) throws -> [AuditEntry] {
        var terms = ["seq > ?"]
        var values: [SQLValue] = [.integer(query.after)]
        if let user = query.user {
            terms.append("user = ?")
            values.append(.text(user.rawValue))
        }
        if let app = query.app {
            terms.append("app = ?")
            values.append(.text(app.rawValue))
        }
        if let service = query.service {
            terms.append("service = ?")
            values.append(.text(service.rawValue))
        }
        if let action = query.action {
            terms.append("action = ?")
            values.append(.text(action.rawValue))
        }
        // Time bounds filter a scan in seq order (`+at` keeps SQLite from sorting a whole time
        // range by seq for every page); `at` follows seq, as writes are serialized.
        if let since = query.since {
            terms.append("+at >= ?")
            values.append(.integer(since.millisecondsSince1970))
        }
        if let until = query.until {
            terms.append("+at < ?")
            values.append(.integer(until.millisecondsSince1970))
        }
        values.append(.integer(Self.limit(query.limit)))
        let sql = "SELECT \(Self.columns) FROM audit WHERE \(terms.joined(separator: " AND ")) ORDER BY seq LIMIT ?"
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
            detail: detail)
    }
}
