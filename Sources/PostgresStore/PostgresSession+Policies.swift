import Foundation
import PermissionDomain
import StoredRows

/// Operator policies (SPEC §4 Policies) and user settings (the Location Services switch).
extension PostgresSession {
    private static let policyColumns = "id, service, app, user_id, effect, level, updated_at"
    private static let selectPolicy = PreparedStatement("SELECT \(policyColumns) FROM policies WHERE id = $1")
    private static let pagePolicies = PreparedStatement(
        "SELECT \(policyColumns) FROM policies WHERE id > $1 ORDER BY id LIMIT $2")
    private static let policiesFor = PreparedStatement(
        """
        SELECT \(policyColumns) FROM policies
        WHERE service = $1 AND (app = $2 OR app IS NULL) AND (user_id = $3 OR user_id IS NULL)
        """)
    private static let upsertPolicy = PreparedStatement(
        """
        INSERT INTO policies (\(policyColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7)
        ON CONFLICT (id) DO UPDATE SET service = excluded.service, app = excluded.app, user_id = excluded.user_id,
            effect = excluded.effect, level = excluded.level, updated_at = excluded.updated_at
        """)
    private static let deleteOne = PreparedStatement("DELETE FROM policies WHERE id = $1")
    private static let selectSettings = PreparedStatement(
        "SELECT location_services_enabled, updated_at, locale FROM user_settings WHERE user_id = $1")
    private static let upsertSettings = PreparedStatement(
        """
        INSERT INTO user_settings (user_id, location_services_enabled, updated_at, locale) VALUES ($1, $2, $3, $4)
        ON CONFLICT (user_id) DO UPDATE SET
            location_services_enabled = excluded.location_services_enabled, updated_at = excluded.updated_at,
            locale = excluded.locale
        """)

    func policy(id: PolicyID) throws -> Policy? {
        try row(Self.selectPolicy, [.text(id.rawValue)]) { try Policy(storedColumns: $0) }
    }

    func policies(after: PolicyID?, limit: Int) throws -> [Policy] {
        try rows(Self.pagePolicies, [.text(after?.rawValue ?? ""), Self.limit(limit)]) { try Policy(storedColumns: $0) }
    }

    func policies(service: ServiceID, app: AppID, user: UserID) throws -> [Policy] {
        try rows(Self.policiesFor, [.text(service.rawValue), .text(app.rawValue), .text(user.rawValue)]) {
            try Policy(storedColumns: $0)
        }
    }

    func save(_ policy: Policy) throws {
        changes?.changedCatalogue()
        try run(
            Self.upsertPolicy,
            [
                .text(policy.id.rawValue), .text(policy.service.rawValue), .optional(policy.app?.rawValue),
                .optional(policy.user?.rawValue), .text(policy.effect.rawValue), .optional(policy.level?.rawValue),
                .int64(policy.updatedAt.millisecondsSince1970),
            ])
    }

    @discardableResult
    func deletePolicy(id: PolicyID) throws -> Bool {
        changes?.changedCatalogue()
        return try run(Self.deleteOne, [.text(id.rawValue)]) > 0
    }

    func userSettings(_ user: UserID) throws -> UserSettings? {
        try row(Self.selectSettings, [.text(user.rawValue)]) {
            UserSettings(
                user: user, locationServicesEnabled: try $0.bool(at: 0),
                locale: $0.optionalString(at: 2).map(LanguageTag.init(trusted:)), updatedAt: try $0.date(1))
        }
    }

    func save(_ settings: UserSettings) throws {
        changes?.savedSettings(of: settings.user)
        try run(
            Self.upsertSettings,
            [
                .text(settings.user.rawValue), .bool(settings.locationServicesEnabled), .date(settings.updatedAt),
                .optional(settings.locale?.rawValue),
            ])
    }
}
