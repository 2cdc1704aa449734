import Foundation
import PermissionDomain
import StoredRows

/// Prompts (SPEC §4 Prompt): by id, filtered listings, the pending one of an authorization,
/// due ones, upsert.
extension StoreSession {
    private static let columns = """
        id, user, app, service, kind, requested_level, options, purpose, purpose_key, state, \
        created_at, expires_at, ended_at, choice, purpose_language, background_uses
        """

    func prompt(id: PromptID) throws -> Prompt? {
        try row("SELECT \(Self.columns) FROM prompts WHERE id = ?1") {
            $0.bind(id.rawValue, at: 1)
        } decode: {
            try Prompt(storedColumns: $0)
        }
    }

    func prompts(matching filter: PromptFilter, after: PromptID?, limit: Int) throws -> [Prompt] {
        var clause = WhereClause()
        clause.equal("user", filter.user?.rawValue)
        clause.equal("app", filter.app?.rawValue)
        clause.equal("service", filter.service?.rawValue)
        if let state = filter.state {
            // A literal, not a parameter, so that the partial indexes on pending prompts apply
            // (https://www.sqlite.org/partialindex.html#queries_using_partial_indexes).
            clause.add("state = '\(state.rawValue)'")
        }
        if let after { clause.add("id > ?", [.text(after.rawValue)]) }
        let values = clause.values + [.integer(Self.limit(limit))]
        let condition = clause.sql
        return try rows("SELECT \(Self.columns) FROM prompts \(condition) ORDER BY id LIMIT ?") {
            $0.bind(values)
        } decode: {
            try Prompt(storedColumns: $0)
        }
    }

    private static let selectPending = StatementSlot(
        """
        SELECT \(columns) FROM prompts
        WHERE user = ?1 AND app = ?2 AND service = ?3 AND state = 'pending'
        """)

    func pendingPrompt(user: UserID, app: AppID, service: ServiceID) throws -> Prompt? {
        try row(Self.selectPending) { statement in
            statement.bind(user.rawValue, at: 1)
            statement.bind(app.rawValue, at: 2)
            statement.bind(service.rawValue, at: 3)
        } decode: {
            try Prompt(storedColumns: $0)
        }
    }

    func duePrompts(before date: Date, limit: Int) throws -> [Prompt] {
        let sql = """
            SELECT \(Self.columns) FROM prompts
            WHERE state = 'pending' AND expires_at <= ?1 ORDER BY expires_at, id LIMIT ?2
            """
        return try rows(sql) { statement in
            statement.bind(date.millisecondsSince1970, at: 1)
            statement.bind(Self.limit(limit), at: 2)
        } decode: {
            try Prompt(storedColumns: $0)
        }
    }

    func save(_ prompt: Prompt) throws {
        try run(
            """
            INSERT INTO prompts (\(Self.columns))
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
            ON CONFLICT (id) DO UPDATE SET
                user = excluded.user, app = excluded.app, service = excluded.service, kind = excluded.kind,
                requested_level = excluded.requested_level, options = excluded.options,
                purpose = excluded.purpose, purpose_key = excluded.purpose_key, state = excluded.state,
                created_at = excluded.created_at, expires_at = excluded.expires_at,
                ended_at = excluded.ended_at, choice = excluded.choice,
                purpose_language = excluded.purpose_language, background_uses = excluded.background_uses
            """
        ) { statement in
            statement.bind(prompt.id.rawValue, at: 1)
            statement.bind(prompt.user.rawValue, at: 2)
            statement.bind(prompt.app.rawValue, at: 3)
            statement.bind(prompt.service.rawValue, at: 4)
            statement.bind(prompt.kind.rawValue, at: 5)
            statement.bind(prompt.requestedLevel.rawValue, at: 6)
            statement.bind(prompt.options.map(\.rawValue).joined(separator: ","), at: 7)
            statement.bind(prompt.purpose.rawValue, at: 8)
            statement.bind(prompt.purposeKey, at: 9)
            statement.bind(prompt.state.rawValue, at: 10)
            statement.bind(prompt.createdAt.millisecondsSince1970, at: 11)
            statement.bind(prompt.expiresAt.millisecondsSince1970, at: 12)
            statement.bind(prompt.endedAt, at: 13)
            statement.bind(prompt.choice?.rawValue, at: 14)
            statement.bind(prompt.purposeLanguage?.rawValue, at: 15)
            statement.bind(prompt.backgroundUses.map(Int64.init), at: 16)
        }
    }
}
