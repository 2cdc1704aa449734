import Foundation
import PermissionDomain
import StoredRows

/// Operator policies (SPEC §4 Policies) and user settings (the Location Services switch).
extension StoreSession {
    private static let policyColumns = "id, service, app, user, effect, level, updated_at"

    func policy(id: PolicyID) throws -> Policy? {
        try row("SELECT \(Self.policyColumns) FROM policies WHERE id = ?1") {
            $0.bind(id.rawValue, at: 1)
        } decode: {
            try Policy(storedColumns: $0)
        }
    }

    func policies(after: PolicyID?, limit: Int) throws -> [Policy] {
        try rows("SELECT \(Self.policyColumns) FROM policies WHERE id > ?1 ORDER BY id LIMIT ?2") { statement in
            statement.bind(after?.rawValue ?? "", at: 1)
            statement.bind(Self.limit(limit), at: 2)
        } decode: {
            try Policy(storedColumns: $0)
        }
    }

    private static let policiesFor = StatementSlot(
        """
        SELECT \(policyColumns) FROM policies
        WHERE service = ?1 AND (app = ?2 OR app IS NULL) AND (user = ?3 OR user IS NULL)
        """)

    func policies(service: ServiceID, app: AppID, user: UserID) throws -> [Policy] {
        if let policyServices, !policyServices.mayHavePolicies(service.rawValue) { return [] }
        // Four index seeks on policies_by_service (service, app, user), one per null/equal pair.
        return try rows(Self.policiesFor) { statement in
            statement.bind(service.rawValue, at: 1)
            statement.bind(app.rawValue, at: 2)
            statement.bind(user.rawValue, at: 3)
        } decode: {
            try Policy(storedColumns: $0)
        }
    }

    /// The services named by at least one policy.
    func policyServiceNames() throws -> Set<String> {
        let services = try rows("SELECT DISTINCT service FROM policies") { _ in
        } decode: {
            try $0.requiredString(at: 0, "policies", "service")
        }
        return Set(services)
    }

    func save(_ policy: Policy) throws {
        policyServices?.add(policy.service.rawValue)  // before the commit: see PolicyServices
        try run(
            """
            INSERT INTO policies (\(Self.policyColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT (id) DO UPDATE SET service = excluded.service, app = excluded.app, user = excluded.user,
                effect = excluded.effect, level = excluded.level, updated_at = excluded.updated_at
            """
        ) { statement in
            statement.bind(policy.id.rawValue, at: 1)
            statement.bind(policy.service.rawValue, at: 2)
            statement.bind(policy.app?.rawValue, at: 3)
            statement.bind(policy.user?.rawValue, at: 4)
            statement.bind(policy.effect.rawValue, at: 5)
            statement.bind(policy.level?.rawValue, at: 6)
            statement.bind(policy.updatedAt.millisecondsSince1970, at: 7)
        }
    }

    @discardableResult
    func deletePolicy(id: PolicyID) throws -> Bool {
        try run("DELETE FROM policies WHERE id = ?1") { $0.bind(id.rawValue, at: 1) }
        return database.changes > 0
    }

    private static let selectUserSettings = StatementSlot(
        "SELECT location_services_enabled, updated_at, locale FROM user_settings WHERE user = ?1")

    func userSettings(_ user: UserID) throws -> UserSettings? {
        try row(Self.selectUserSettings) {
            $0.bind(user.rawValue, at: 1)
        } decode: {
            UserSettings(
                user: user, locationServicesEnabled: $0.bool(at: 0), locale: $0.string(at: 2).map(LanguageTag.init(trusted:)),
                updatedAt: $0.date(at: 1))
        }
    }

    func save(_ settings: UserSettings) throws {
        try run(
            """
            INSERT INTO user_settings (user, location_services_enabled, updated_at, locale) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (user) DO UPDATE SET
                location_services_enabled = excluded.location_services_enabled, updated_at = excluded.updated_at,
                locale = excluded.locale
            """
        ) { statement in
            statement.bind(settings.user.rawValue, at: 1)
            statement.bind(settings.locationServicesEnabled, at: 2)
            statement.bind(settings.updatedAt, at: 3)
            statement.bind(settings.locale?.rawValue, at: 4)
        }
    }
}
