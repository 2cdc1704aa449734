internal import Foundation
package import PermissionDomain

extension Prompt {
    /// Decodes a stored prompt from the columns both stores select, in this order: `id`, the
    /// user, `app`, `service`, `kind`, `requested_level`, `options`, `purpose`, `purpose_key`,
    /// `state`, `created_at`, `expires_at`, `ended_at`, `choice`, `purpose_language`,
    /// `background_uses`.
    /// - Throws: the store's corruption error for a value that does not parse.
    package init(storedColumns row: some StoredColumns) throws {
        var options: [Choice] = []
        for part in row.list(6) {
            guard let choice = Choice(rawValue: String(part)) else { throw row.corrupt("prompts", "options") }
            options.append(choice)
        }
        var choice: Choice?
        if let text = row.text(13) {
            guard let value = Choice(rawValue: text) else { throw row.corrupt("prompts", "choice") }
            choice = value
        }
        self.init(
            id: PromptID(trusted: try row.required(0, "prompts", "id")),
            user: UserID(trusted: try row.required(1, "prompts", row.userColumn)),
            app: AppID(trusted: try row.required(2, "prompts", "app")),
            service: ServiceID(trusted: try row.required(3, "prompts", "service")),
            kind: try row.enumeration(PromptKind.self, at: 4, "prompts", "kind"),
            requestedLevel: Level(trusted: try row.required(5, "prompts", "requested_level")),
            options: options,
            purpose: PurposeString(trusted: try row.required(7, "prompts", "purpose")),
            purposeLanguage: row.text(14).map(LanguageTag.init(trusted:)),
            purposeKey: try row.required(8, "prompts", "purpose_key"),
            state: try row.enumeration(PromptState.self, at: 9, "prompts", "state"),
            createdAt: try row.date(10) ?? Date(millisecondsSince1970: 0),
            expiresAt: try row.date(11) ?? Date(millisecondsSince1970: 0),
            endedAt: try row.date(12),
            choice: choice, backgroundUses: try row.integer(15).map { Int($0) })
    }
}
