import Foundation
import PermissionDomain

/// Prompts (SPEC §4 Prompt): by id, filtered listings, the pending one of an authorization,
/// due ones, upsert.
extension PostgresSession {
    private static let columns = """
        id, user_id, app, service, kind, requested_level, options, purpose, purpose_key, state, \
        created_at, expires_at, ended_at, choice, purpose_language
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
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
        ON CONFLICT (id) DO UPDATE SET
            user_id = excluded.user_id, app = excluded.app, service = excluded.service, kind = excluded.kind,
            requested_level = excluded.requested_level, options = excluded.options,
            purpose = excluded.purpose, purpose_key = excluded.purpose_key, state = excluded.state,
            created_at = excluded.created_at, expires_at = excluded.expires_at,
            ended_at = excluded.ended_at, choice = excluded.choice, purpose_language = excluded.purpose_language
        """)

    func prompt(id: PromptID) throws -> Prompt? {
        try row(Self.selectOne, [.text(id.rawValue)]) { try Self.decodePrompt($0) }
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
        return try rows(.cached(sql), clause.values + [Self.limit(limit)]) { try Self.decodePrompt($0) }
    }

    func pendingPrompt(user: UserID, app: AppID, service: ServiceID) throws -> Prompt? {
        try row(Self.selectPending, [.text(user.rawValue), .text(app.rawValue), .text(service.rawValue)]) {
            try Self.decodePrompt($0)
        }
    }

    func duePrompts(before date: Date, limit: Int) throws -> [Prompt] {
        try rows(Self.selectDue, [.int64(date.millisecondsSince1970), Self.limit(limit)]) { try Self.decodePrompt($0) }
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
                .optional(prompt.purposeLanguage?.rawValue),
            ])
    }

    private static func decodePrompt(_ row: PostgresRow) throws -> Prompt {
        var options: [Choice] = []
        for part in row.list(at: 6) {
            guard let choice = Choice(rawValue: String(part)) else { throw corrupt("prompts", "options") }
            options.append(choice)
        }
        var choice: Choice?
        if let text = row.optionalString(at: 13) {
            guard let value = Choice(rawValue: text) else { throw corrupt("prompts", "choice") }
            choice = value
        }
        return Prompt(
            id: PromptID(trusted: try row.required(0, "prompts", "id")),
            user: UserID(trusted: try row.required(1, "prompts", "user_id")),
            app: AppID(trusted: try row.required(2, "prompts", "app")),
            service: ServiceID(trusted: try row.required(3, "prompts", "service")),
            kind: try row.enumeration(PromptKind.self, at: 4, "prompts", "kind"),
            requestedLevel: Level(trusted: try row.required(5, "prompts", "requested_level")),
            options: options,
            purpose: PurposeString(trusted: try row.required(7, "prompts", "purpose")),
            purposeLanguage: row.optionalString(at: 14).map(LanguageTag.init(trusted:)),
            purposeKey: try row.required(8, "prompts", "purpose_key"),
            state: try row.enumeration(PromptState.self, at: 9, "prompts", "state"),
            createdAt: try row.date(at: 10) ?? Date(millisecondsSince1970: 0),
            expiresAt: try row.date(at: 11) ?? Date(millisecondsSince1970: 0),
            endedAt: try row.date(at: 12),
            choice: choice)
    }
}
