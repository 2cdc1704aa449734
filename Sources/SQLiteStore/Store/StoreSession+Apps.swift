import Foundation
import PermissionDomain

/// Registered apps and their purpose strings (SPEC §4 Apps), and custom services (SPEC §2).
extension StoreSession {
    /// On a reader with a read cache, from memory when cached (the hot path asks for the app of
    /// every authorized record, for `purposeChanged`); the writer's ``ReadCacheTracker`` removes
    /// an app when its rows change.
    func app(_ id: AppID) throws -> App? {
        guard let cache = shared?.cache else { return try storedApp(id) }
        if let cached = cache.lookupApp(id, readAt: cacheGeneration) { return cached }
        let found = try storedApp(id)
        cache.insertApp(id, app: found, readAt: cacheGeneration)
        return found
    }

    /// The statements of ``storedApp(_:)``, which a settings write that authorizes runs too (for
    /// the level's purpose strings): slots, never looked up by their text.
    private static let selectApp = StatementSlot(
        "SELECT name, updated_at, version, development_language FROM apps WHERE id = ?1")
    private static let selectPurposeStrings = StatementSlot("SELECT key, purpose FROM app_purpose_strings WHERE app = ?1")
    private static let selectLocalizedPurposeStrings = StatementSlot(
        "SELECT language, key, purpose FROM app_localized_purpose_strings WHERE app = ?1")

    /// ``app(_:)`` from the file.
    private func storedApp(_ id: AppID) throws -> App? {
        guard
            let (name, updatedAt, version, language) = try row(
                Self.selectApp, bind: { $0.bind(id.rawValue, at: 1) },
                decode: {
                    (try $0.requiredString(at: 0, "apps", "name"), $0.int64(at: 1), $0.string(at: 2), $0.string(at: 3))
                })
        else { return nil }
        return App(
            trusted: id, name: name, purposeStrings: try purposeStrings(of: id),
            localizedPurposeStrings: try localizedPurposeStrings(of: id),
            developmentLanguage: language.map(LanguageTag.init(trusted:)), version: version,
            updatedAt: Date(millisecondsSince1970: updatedAt))
    }

    func apps(after: AppID?, limit: Int) throws -> [App] {
        let page = try rows(
            "SELECT id, name, updated_at, version, development_language FROM apps WHERE id > ?1 ORDER BY id LIMIT ?2"
        ) {
            statement in
            statement.bind(after?.rawValue ?? "", at: 1)
            statement.bind(Self.limit(limit), at: 2)
        } decode: { statement in
            (
                AppID(trusted: try statement.requiredString(at: 0, "apps", "id")),
                try statement.requiredString(at: 1, "apps", "name"), statement.int64(at: 2), statement.string(at: 3),
                statement.string(at: 4)
            )
        }
        return try page.map { id, name, updatedAt, version, language in
            App(
                trusted: id, name: name, purposeStrings: try purposeStrings(of: id),
                localizedPurposeStrings: try localizedPurposeStrings(of: id),
                developmentLanguage: language.map(LanguageTag.init(trusted:)), version: version,
                updatedAt: Date(millisecondsSince1970: updatedAt))
        }
    }

    private func purposeStrings(of app: AppID) throws -> [String: PurposeString] {
        let pairs = try rows(Self.selectPurposeStrings) {
            $0.bind(app.rawValue, at: 1)
        } decode: {
            (
                try $0.requiredString(at: 0, "app_purpose_strings", "key"),
                PurposeString(trusted: try $0.requiredString(at: 1, "app_purpose_strings", "purpose"))
            )
        }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    private func localizedPurposeStrings(of app: AppID) throws -> [LanguageTag: [String: PurposeString]] {
        let rows = try rows(Self.selectLocalizedPurposeStrings) {
            $0.bind(app.rawValue, at: 1)
        } decode: {
            (
                LanguageTag(trusted: try $0.requiredString(at: 0, "app_localized_purpose_strings", "language")),
                try $0.requiredString(at: 1, "app_localized_purpose_strings", "key"),
                PurposeString(trusted: try $0.requiredString(at: 2, "app_localized_purpose_strings", "purpose"))
            )
        }
        var strings: [LanguageTag: [String: PurposeString]] = [:]
        for (language, key, purpose) in rows { strings[language, default: [:]][key] = purpose }
        return strings
    }

    func save(_ app: App) throws {
        try run(
            """
            INSERT INTO apps (id, name, updated_at, version, development_language) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (id) DO UPDATE SET
                name = excluded.name, updated_at = excluded.updated_at, version = excluded.version,
                development_language = excluded.development_language
            """
        ) { statement in
            statement.bind(app.id.rawValue, at: 1)
            statement.bind(app.name, at: 2)
            statement.bind(app.updatedAt.millisecondsSince1970, at: 3)
            statement.bind(app.version, at: 4)
            statement.bind(app.developmentLanguage?.rawValue, at: 5)
        }
        try run("DELETE FROM app_purpose_strings WHERE app = ?1") { $0.bind(app.id.rawValue, at: 1) }
        for (key, purpose) in app.purposeStrings {
            try run("INSERT INTO app_purpose_strings (app, key, purpose) VALUES (?1, ?2, ?3)") { statement in
                statement.bind(app.id.rawValue, at: 1)
                statement.bind(key, at: 2)
                statement.bind(purpose.rawValue, at: 3)
            }
        }
        try run("DELETE FROM app_localized_purpose_strings WHERE app = ?1") { $0.bind(app.id.rawValue, at: 1) }
        for (language, strings) in app.localizedPurposeStrings {
            for (key, purpose) in strings {
                try run("INSERT INTO app_localized_purpose_strings (app, language, key, purpose) VALUES (?1, ?2, ?3, ?4)") {
                    statement in
                    statement.bind(app.id.rawValue, at: 1)
                    statement.bind(language.rawValue, at: 2)
                    statement.bind(key, at: 3)
                    statement.bind(purpose.rawValue, at: 4)
                }
            }
        }
    }

    func service(_ id: ServiceID) throws -> ServiceDefinition? {
        guard
            let (builtin, specials) = try row(
                "SELECT builtin, specials FROM services WHERE id = ?1", bind: { $0.bind(id.rawValue, at: 1) },
                decode: {
                    ($0.bool(at: 0), try Self.decodeSpecials($0.list(at: 1)))
                })
        else { return nil }
        return try definition(id: id, builtin: builtin, specials: specials)
    }

    func services() throws -> [ServiceDefinition] {
        let headers = try rows("SELECT id, builtin, specials FROM services ORDER BY id", bind: { _ in }) { statement in
            (
                ServiceID(trusted: try statement.requiredString(at: 0, "services", "id")), statement.bool(at: 1),
                try Self.decodeSpecials(statement.list(at: 2))
            )
        }
        return try headers.map { id, builtin, specials in try definition(id: id, builtin: builtin, specials: specials) }
    }

    private func definition(id: ServiceID, builtin: Bool, specials: Set<ServiceSpecial>) throws -> ServiceDefinition {
        let levels = try rows("SELECT level, purpose_keys FROM service_levels WHERE service = ?1 ORDER BY rank") {
            $0.bind(id.rawValue, at: 1)
        } decode: { statement in
            (
                Level(trusted: try statement.requiredString(at: 0, "service_levels", "level")),
                statement.list(at: 1).map(String.init)
            )
        }
        guard !levels.isEmpty else { throw Self.corrupt("service_levels", "level") }
        return ServiceDefinition(
            trusted: id, levels: levels.map(\.0), purposeKeys: levels.map(\.1), builtin: builtin, specials: specials)
    }

    private static func decodeSpecials(_ parts: [Substring]) throws -> Set<ServiceSpecial> {
        guard let specials = ServiceSpecial.set(storedAs: parts) else { throw corrupt("services", "specials") }
        return specials
    }

    func save(_ service: ServiceDefinition) throws {
        try run(
            """
            INSERT INTO services (id, builtin, specials) VALUES (?1, ?2, ?3)
            ON CONFLICT (id) DO UPDATE SET builtin = excluded.builtin, specials = excluded.specials
            """
        ) { statement in
            statement.bind(service.id.rawValue, at: 1)
            statement.bind(service.builtin, at: 2)
            statement.bind(service.specials.map(\.rawValue).sorted().joined(separator: ","), at: 3)
        }
        try run("DELETE FROM service_levels WHERE service = ?1") { $0.bind(service.id.rawValue, at: 1) }
        for (rank, level) in service.levels.enumerated() {
            try run("INSERT INTO service_levels (service, rank, level, purpose_keys) VALUES (?1, ?2, ?3, ?4)") { statement in
                statement.bind(service.id.rawValue, at: 1)
                statement.bind(rank, at: 2)
                statement.bind(level.rawValue, at: 3)
                statement.bind(service.purposeKeys[rank].joined(separator: ","), at: 4)
            }
        }
    }

    func levelUse(service: ServiceID) throws -> [Level: LevelUse] {
        var use: [Level: LevelUse] = [:]
        // Both counts over the service's rows only: `authorizations_by_service` for the records;
        // the prompts are few once answered ones are left out (`prompts_pending_due`).
        let held = try rows(
            "SELECT level, count(*) FROM authorizations WHERE service = ?1 AND level IS NOT NULL GROUP BY level",
            bind: { $0.bind(service.rawValue, at: 1) }
        ) { (try $0.requiredString(at: 0, "authorizations", "level"), $0.int(at: 1)) }
        for (level, count) in held { use[Level(trusted: level), default: LevelUse()].authorizations = count }
        let asked = try rows(
            """
            SELECT requested_level, count(*) FROM prompts WHERE state = 'pending' AND service = ?1
            GROUP BY requested_level
            """,
            bind: { $0.bind(service.rawValue, at: 1) }
        ) { (try $0.requiredString(at: 0, "prompts", "requested_level"), $0.int(at: 1)) }
        for (level, count) in asked { use[Level(trusted: level), default: LevelUse()].pendingPrompts = count }
        return use
    }
}
