import Foundation
import PermissionDomain
import StoredRows

/// Prompts (SPEC §4 Prompt): by id, filtered listings, the pending one of an authorization,
/// due ones, upsert.
extension PostgresSession {
    private static let columns = """
        id, user_id, app, service, kind, requested_level, options, purpose, purpose_key, state, \
        created_at, expires_at, ended_at, choice, purpose_language, background_uses
        """
    private static let selectOne = PreparedStatement("SELECT \(columns) FROM prompts WHERE id = $1")
    private static let selectPending = PreparedStatement(
        """
        SELECT \(columns) FROM prompts
        WHERE user_id = $1 AND app = $2 AND service = $3 AND state = 'pending'
        """)
    private static let selectDue = PreparedStatement(
        """
        SELECT \(columns) FROM prompts
        WHERE state = 'pending' AND expires_at <= $1 ORDER BY expires_at, id LIMIT $2
        """)
    private static let upsert = PreparedStatement(
        """
        INSERT INTO prompts (\(columns))
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
        ON CONFLICT (id) DO UPDATE SET
            user_id = excluded.user_id, app = excluded.app, service = excluded.service, kind = excluded.kind,
            requested_level = excluded.requested_level, options = excluded.options,
            purpose = excluded.purpose, purpose_key = excluded.purpose_key, state = excluded.state,
            created_at = excluded.created_at, expires_at = excluded.expires_at,
            ended_at = excluded.ended_at, choice = excluded.choice, purpose_language = excluded.purpose_language,
            background_uses = excluded.background_uses
        """)

    func prompt(id: PromptID) throws -> Prompt? {
        try row(Self.selectOne, [.text(id.rawValue)]) { try Prompt(storedColumns: $0) }
    }

    func prompts(matching filter: PromptFilter, after: PromptID?, limit: Int) throws -> [Prompt] {
        var clause = WhereClause()
        clause.equal("user_id", filter.user?.rawValue)
        clause.equal("app", filter.app?.rawValue)
        clause.equal("service", filter.service?.rawValue)
        // A literal, not a parameter, so that the planner can use the partial indexes on
        // pending prompts (the state's raw values are fixed identifiers, not input).
        if let state = filter.state { clause.add("state = '\(state.rawValue)'", []) }
        if let after { clause.add("id > ?", [.text(after.rawValue)]) }
        let sql = "SELECT \(Self.columns) FROM prompts \(clause.sql) ORDER BY id LIMIT \(clause.nextPlaceholder)"
        return try rows(.cached(sql), clause.values + [Self.limit(limit)]) { try Prompt(storedColumns: $0) }
    }

    func pendingPrompt(user: UserID, app: AppID, service: ServiceID) throws -> Prompt? {
        try row(Self.selectPending, [.text(user.rawValue), .text(app.rawValue), .text(service.rawValue)]) {
            try Prompt(storedColumns: $0)
        }
    }

    func duePrompts(before date: Date, limit: Int) throws -> [Prompt] {
        try rows(Self.selectDue, [.int64(date.millisecondsSince1970), Self.limit(limit)]) { try Prompt(storedColumns: $0) }
    }

    func save(_ prompt: Prompt) throws {
        try run(
            Self.upsert,
            [
                .text(prompt.id.rawValue), .text(prompt.user.rawValue), .text(prompt.app.rawValue),
                .text(prompt.service.rawValue), .text(prompt.kind.rawValue), .text(prompt.requestedLevel.rawValue),
                .text(prompt.options.map(\.rawValue).joined(separator: ",")), .text(prompt.purpose.rawValue),
                .text(prompt.purposeKey), .text(prompt.state.rawValue), .int64(prompt.createdAt.millisecondsSince1970),
                .int64(prompt.expiresAt.millisecondsSince1970), .date(prompt.endedAt), .optional(prompt.choice?.rawValue),
                .optional(prompt.purposeLanguage?.rawValue), .optional(prompt.backgroundUses.map(Int64.init)),
            ])
    }
}
