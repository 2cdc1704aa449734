import Foundation
import PermissionDomain
import StoredRows

/// Registered apps and their purpose strings (SPEC §4 Apps), and custom services (SPEC §2).
extension PostgresSession {
    private static let selectApp = PreparedStatement(
        "SELECT name, updated_at, version, development_language FROM apps WHERE id = $1")
    private static let pageApps = PreparedStatement(
        "SELECT id, name, updated_at, version, development_language FROM apps WHERE id > $1 ORDER BY id LIMIT $2")
    private static let selectPurposes = PreparedStatement("SELECT key, purpose FROM app_purpose_strings WHERE app = $1")
    private static let upsertApp = PreparedStatement(
        """
        INSERT INTO apps (id, name, updated_at, version, development_language) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at, version = excluded.version,
            development_language = excluded.development_language
        """)
    private static let deletePurposes = PreparedStatement("DELETE FROM app_purpose_strings WHERE app = $1")
    private static let insertPurpose = PreparedStatement(
        "INSERT INTO app_purpose_strings (app, key, purpose) VALUES ($1, $2, $3)")
    private static let selectLocalized = PreparedStatement(
        "SELECT language, key, purpose FROM app_localized_purpose_strings WHERE app = $1")
    private static let deleteLocalized = PreparedStatement("DELETE FROM app_localized_purpose_strings WHERE app = $1")
    private static let insertLocalized = PreparedStatement(
        "INSERT INTO app_localized_purpose_strings (app, language, key, purpose) VALUES ($1, $2, $3, $4)")

    func app(_ id: AppID) throws -> App? {
        guard
            let (name, updatedAt, version, language) = try row(
                Self.selectApp, [.text(id.rawValue)],
                decode: {
                    (
                        try $0.required(0, "apps", "name"), try $0.int64(at: 1), $0.optionalString(at: 2),
                        $0.optionalString(at: 3)
                    )
                })
        else { return nil }
        return App(
            trusted: id, name: name, purposeStrings: try purposeStrings(of: id),
            localizedPurposeStrings: try localizedPurposeStrings(of: id),
            developmentLanguage: language.map(LanguageTag.init(trusted:)), version: version,
            updatedAt: Date(millisecondsSince1970: updatedAt))
    }

    func apps(after: AppID?, limit: Int) throws -> [App] {
        let page = try rows(Self.pageApps, [.text(after?.rawValue ?? ""), Self.limit(limit)]) { row in
            (
                AppID(trusted: try row.required(0, "apps", "id")), try row.required(1, "apps", "name"),
                try row.int64(at: 2), row.optionalString(at: 3), row.optionalString(at: 4)
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
        let pairs = try rows(Self.selectPurposes, [.text(app.rawValue)]) {
            (
                try $0.required(0, "app_purpose_strings", "key"),
                PurposeString(trusted: try $0.required(1, "app_purpose_strings", "purpose"))
            )
        }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    private func localizedPurposeStrings(of app: AppID) throws -> [LanguageTag: [String: PurposeString]] {
        let found = try rows(Self.selectLocalized, [.text(app.rawValue)]) {
            (
                LanguageTag(trusted: try $0.required(0, "app_localized_purpose_strings", "language")),
                try $0.required(1, "app_localized_purpose_strings", "key"),
                PurposeString(trusted: try $0.required(2, "app_localized_purpose_strings", "purpose"))
            )
        }
        var strings: [LanguageTag: [String: PurposeString]] = [:]
        for (language, key, purpose) in found { strings[language, default: [:]][key] = purpose }
        return strings
    }

    func save(_ app: App) throws {
        changes?.savedApp(app.id)
        try run(
            Self.upsertApp,
            [
                .text(app.id.rawValue), .text(app.name), .int64(app.updatedAt.millisecondsSince1970),
                .optional(app.version), .optional(app.developmentLanguage?.rawValue),
            ])
        try run(Self.deletePurposes, [.text(app.id.rawValue)])
        for (key, purpose) in app.purposeStrings {
            try run(Self.insertPurpose, [.text(app.id.rawValue), .text(key), .text(purpose.rawValue)])
        }
        try run(Self.deleteLocalized, [.text(app.id.rawValue)])
        for (language, strings) in app.localizedPurposeStrings {
            for (key, purpose) in strings {
                try run(
                    Self.insertLocalized,
                    [
                        .text(app.id.rawValue), .text(language.rawValue), .text(key), .text(purpose.rawValue),
                    ])
            }
        }
    }

    private static let selectService = PreparedStatement("SELECT builtin, specials FROM services WHERE id = $1")
    private static let selectServices = PreparedStatement("SELECT id, builtin, specials FROM services ORDER BY id")
    private static let selectLevels = PreparedStatement(
        "SELECT level, purpose_keys FROM service_levels WHERE service = $1 ORDER BY rank")
    private static let upsertService = PreparedStatement(
        """
        INSERT INTO services (id, builtin, specials) VALUES ($1, $2, $3)
        ON CONFLICT (id) DO UPDATE SET builtin = excluded.builtin, specials = excluded.specials
        """)
    private static let deleteLevels = PreparedStatement("DELETE FROM service_levels WHERE service = $1")
    private static let countHeldLevels = PreparedStatement(
        "SELECT level, count(*) FROM authorizations WHERE service = $1 AND level IS NOT NULL GROUP BY level")
    private static let countAskedLevels = PreparedStatement(
        """
        SELECT requested_level, count(*) FROM prompts WHERE state = 'pending' AND service = $1
        GROUP BY requested_level
        """)
    private static let insertLevel = PreparedStatement(
        "INSERT INTO service_levels (service, rank, level, purpose_keys) VALUES ($1, $2, $3, $4)")

    func service(_ id: ServiceID) throws -> ServiceDefinition? {
        guard
            let (builtin, specials) = try row(
                Self.selectService, [.text(id.rawValue)],
                decode: {
                    (try $0.bool(at: 0), try Self.decodeSpecials($0.list(1)))
                })
        else { return nil }
        return try definition(id: id, builtin: builtin, specials: specials)
    }

    func services() throws -> [ServiceDefinition] {
        let headers = try rows(Self.selectServices) { row in
            (
                ServiceID(trusted: try row.required(0, "services", "id")), try row.bool(at: 1),
                try Self.decodeSpecials(row.list(2))
            )
        }
        return try headers.map { id, builtin, specials in try definition(id: id, builtin: builtin, specials: specials) }
    }

    private func definition(id: ServiceID, builtin: Bool, specials: Set<ServiceSpecial>) throws -> ServiceDefinition {
        let levels = try rows(Self.selectLevels, [.text(id.rawValue)]) { row in
            (Level(trusted: try row.required(0, "service_levels", "level")), row.list(1).map(String.init))
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
        changes?.changedCatalogue()
        try run(
            Self.upsertService,
            [
                .text(service.id.rawValue), .bool(service.builtin),
                .text(service.specials.map(\.rawValue).sorted().joined(separator: ",")),
            ])
        try run(Self.deleteLevels, [.text(service.id.rawValue)])
        for (rank, level) in service.levels.enumerated() {
            try run(
                Self.insertLevel,
                [
                    .text(service.id.rawValue), .int64(Int64(rank)), .text(level.rawValue),
                    .text(service.purposeKeys[rank].joined(separator: ",")),
                ])
        }
    }

    /// Read after the batch took the audit chain head's lock (``PostgresWriter``), which every
    /// write of every replica takes first: a grant of another replica either committed before
    /// (and is counted) or waits, then reads the new definition.
    func levelUse(service: ServiceID) throws -> [Level: LevelUse] {
        var use: [Level: LevelUse] = [:]
        let held = try rows(Self.countHeldLevels, [.text(service.rawValue)]) {
            (try $0.required(0, "authorizations", "level"), try $0.int64(at: 1))
        }
        for (level, count) in held { use[Level(trusted: level), default: LevelUse()].authorizations = Int(count) }
        let asked = try rows(Self.countAskedLevels, [.text(service.rawValue)]) {
            (try $0.required(0, "prompts", "requested_level"), try $0.int64(at: 1))
        }
        for (level, count) in asked { use[Level(trusted: level), default: LevelUse()].pendingPrompts = Int(count) }
        return use
    }
}
