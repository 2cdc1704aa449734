import Foundation
import PermissionDomain
import StoredRows

/// Authorization records: the hot-path point read, filtered listings, due once grants, upsert.
extension StoreSession {
    private static let columns = """
        user, app, service, status, level, provisional, once, expires_at, reason, purpose, \
        declined_levels, updated_at, version, purpose_language, button_confirmed, purpose_key
        """

    private static let selectOne = StatementSlot(
        """
        SELECT status, level, provisional, once, expires_at, reason, purpose, declined_levels, updated_at, version,
            purpose_language, button_confirmed, purpose_key
        FROM authorizations WHERE user = ?1 AND app = ?2 AND service = ?3
        """)

    /// Always one row: the record's columns (NULL when there is none), then the user's
    /// settings (NULL when never changed); two primary-key seeks in one statement.
    private static let selectOneWithSettings = StatementSlot(
        """
        SELECT a.status, a.level, a.provisional, a.once, a.expires_at, a.reason, a.purpose, a.declined_levels,
            a.updated_at, a.version, a.purpose_language, a.button_confirmed, a.purpose_key,
            s.location_services_enabled, s.updated_at, s.locale
        FROM (SELECT 1) LEFT JOIN authorizations AS a ON a.user = ?1 AND a.app = ?2 AND a.service = ?3
        LEFT JOIN user_settings AS s ON s.user = ?1
        """)

    private static let selectVersionFloor = StatementSlot("SELECT version FROM version_floor WHERE id = 1")
    private static let raiseVersionFloor = StatementSlot(
        """
        UPDATE version_floor SET version = max(version, (SELECT coalesce(max(version), 0) FROM authorizations WHERE user = ?1))
        WHERE id = 1
        """)

    func versionFloor() throws -> Int64 {
        guard let floor = try row(Self.selectVersionFloor, bind: { _ in }, decode: { $0.int64(at: 0) }) else {
            throw Self.corrupt("version_floor", "id")
        }
        return floor
    }

    /// Raises the version floor to the highest version of `user`'s records, before an erasure
    /// deletes them.
    func raiseVersionFloor(toRecordsOf user: UserID) throws {
        try run(Self.raiseVersionFloor) { $0.bind(user.rawValue, at: 1) }
        guard database.changes == 1 else { throw Self.corrupt("version_floor", "id") }
    }

    func authorization(user: UserID, app: AppID, service: ServiceID) throws -> StoredAuthorization? {
        try database.withStatement(Self.selectOne) { statement in
            try statement.withTexts(user.rawValue, app.rawValue, service.rawValue) { statement in
                try statement.step()
                    ? try Self.decodeAuthorization(statement, user: user, app: app, service: service, offset: 0) : nil
            }
        }
    }

    func authorizationAndSettings(
        user: UserID, app: AppID, service: ServiceID, withSettings: Bool
    ) throws
        -> (stored: StoredAuthorization?, settings: UserSettings?)
    {
        guard let cache = shared?.cache else {
            return try storedAuthorizationAndSettings(user: user, app: app, service: service, withSettings: withSettings)
        }
        let key = AuthorizationKey(user: user, app: app, service: service)
        if let cached = cache.lookup(key, withSettings: withSettings, readAt: cacheGeneration) { return cached }
        let found = try storedAuthorizationAndSettings(user: user, app: app, service: service, withSettings: withSettings)
        cache.insert(key, stored: found.stored, settings: withSettings ? .some(found.settings) : nil, readAt: cacheGeneration)
        return found
    }

    /// ``authorizationAndSettings(user:app:service:withSettings:)`` from the file.
    private func storedAuthorizationAndSettings(
        user: UserID, app: AppID, service: ServiceID, withSettings: Bool
    ) throws
        -> (stored: StoredAuthorization?, settings: UserSettings?)
    {
        guard withSettings else { return (try authorization(user: user, app: app, service: service), nil) }
        let found = try database.withStatement(Self.selectOneWithSettings) { statement in
            // The keys bound in place, not copied by SQLite (see `withTexts`).
            try statement.withTexts(user.rawValue, app.rawValue, service.rawValue) { statement in
                try statement.step() ? try Self.decodeWithSettings(statement, user: user, app: app, service: service) : nil
            }
        }
        return found ?? (nil, nil)
    }

    private static func decodeWithSettings(
        _ statement: Statement, user: UserID, app: AppID, service: ServiceID
    ) throws
        -> (StoredAuthorization?, UserSettings?)
    {
        // status is NOT NULL in the table, so NULL means no record.
        let stored =
            statement.isNull(at: 0)
            ? nil : try decodeAuthorization(statement, user: user, app: app, service: service, offset: 0)
        let settings =
            statement.isNull(at: 13)
            ? nil
            : UserSettings(
                user: user, locationServicesEnabled: statement.bool(at: 13),
                locale: statement.string(at: 15).map(LanguageTag.init(trusted:)), updatedAt: statement.date(at: 14))
        return (stored, settings)
    }

    private static let pageWithSettings = StatementSlot(
        """
        SELECT a.user, a.app, a.service, a.status, a.level, a.provisional, a.once, a.expires_at, a.reason, a.purpose,
            a.declined_levels, a.updated_at, a.version, a.purpose_language, a.button_confirmed, a.purpose_key,
            s.location_services_enabled, s.updated_at, s.locale
        FROM authorizations AS a LEFT JOIN user_settings AS s ON s.user = a.user
        WHERE (a.user, a.app, a.service) > (?1, ?2, ?3) ORDER BY a.user, a.app, a.service LIMIT ?4
        """)

    /// Records in key order after `after` (from the start when nil), each with its user's
    /// settings (nil when never changed): the read cache's warm-up, which keeps each distinct
    /// user, app, service and purpose once however many records repeat it.
    func authorizationsWithSettings(
        after: AuthorizationKey?, limit: Int
    )
        throws -> [(stored: StoredAuthorization, settings: UserSettings?)]
    {
        try database.withStatement(Self.pageWithSettings) { statement in
            statement.bind(after?.user.rawValue ?? "", at: 1)
            statement.bind(after?.app.rawValue ?? "", at: 2)
            statement.bind(after?.service.rawValue ?? "", at: 3)
            statement.bind(Self.limit(limit), at: 4)
            var page: [(stored: StoredAuthorization, settings: UserSettings?)] = []
            var previousUser: UserID?
            while try statement.step() {
                let userText = try statement.requiredString(at: 0, "authorizations", "user")
                let user = previousUser?.rawValue == userText ? previousUser! : UserID(trusted: userText)
                previousUser = user
                let app = AppID(trusted: try statement.requiredString(at: 1, "authorizations", "app"))
                let service = ServiceID(trusted: try statement.requiredString(at: 2, "authorizations", "service"))
                let stored = try Self.decodeAuthorization(statement, user: user, app: app, service: service, offset: 3)
                let settings =
                    statement.isNull(at: 16)
                    ? nil
                    : UserSettings(
                        user: user, locationServicesEnabled: statement.bool(at: 16),
                        locale: statement.string(at: 18).map(LanguageTag.init(trusted:)), updatedAt: statement.date(at: 17))
                page.append((stored, settings))
            }
            return page
        }
    }

    func authorizations(
        matching filter: AuthorizationFilter, after: AuthorizationKey?, limit: Int
    ) throws
        -> [StoredAuthorization]
    {
        let (sql, values) = Self.listing(matching: filter, after: after)
        let parameters = values + [.integer(Self.limit(limit))]
        return try rows(sql) {
            $0.bind(parameters)
        } decode: {
            try Self.decodeListedAuthorization($0)
        }
    }

    /// The listing's query and its parameters but the last (the `LIMIT`): equality terms,
    /// then the keyset cursor. SQLite picks the index whose prefix matches (see
    /// PermissionSchema) and reads it in (user, app, service) order without sorting, which
    /// `ListingQueryPlanTests` checks for every combination of filters. An app's listing,
    /// filtered by service or not, is told to read `authorizations_by_app`: without statistics
    /// SQLite would as soon read the service's index, every user's rows of that service, to find
    /// one app's.
    static func listing(matching filter: AuthorizationFilter, after: AuthorizationKey?) -> (sql: String, values: [SQLValue]) {
        var clause = WhereClause()
        clause.equal("user", filter.user?.rawValue)
        clause.equal("app", filter.app?.rawValue)
        clause.equal("service", filter.service?.rawValue)
        clause.equal("status", filter.status?.rawValue)
        if let after {
            clause.add(
                "(user, app, service) > (?, ?, ?)",
                [.text(after.user.rawValue), .text(after.app.rawValue), .text(after.service.rawValue)])
        }
        let byApp = filter.app != nil && filter.user == nil && (filter.service == nil || filter.status == nil)
        let table = byApp ? "authorizations INDEXED BY authorizations_by_app" : "authorizations"
        return ("SELECT \(columns) FROM \(table) \(clause.sql) ORDER BY user, app, service LIMIT ?", clause.values)
    }

    func dueGrants(before date: Date, limit: Int) throws -> [StoredAuthorization] {
        let sql = """
            SELECT \(Self.columns) FROM authorizations
            WHERE expires_at IS NOT NULL AND expires_at <= ?1 AND status = 'authorized'
            ORDER BY expires_at, user, app, service LIMIT ?2
            """
        return try rows(sql) { statement in
            statement.bind(date.millisecondsSince1970, at: 1)
            statement.bind(Self.limit(limit), at: 2)
        } decode: {
            try Self.decodeListedAuthorization($0)
        }
    }

    private static let upsert = StatementSlot(
        """
        INSERT INTO authorizations (\(columns), purpose_hash)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
        ON CONFLICT (user, app, service) DO UPDATE SET \(StoredAuthorization.upsertAssignments)
        """)

    func save(_ authorization: StoredAuthorization) throws {
        try run(Self.upsert) { statement in
            statement.bind(authorization.user.rawValue, at: 1)
            statement.bind(authorization.app.rawValue, at: 2)
            statement.bind(authorization.service.rawValue, at: 3)
            statement.bind(authorization.status.rawValue, at: 4)
            statement.bind(authorization.level?.rawValue, at: 5)
            statement.bind(authorization.provisional, at: 6)
            statement.bind(authorization.once, at: 7)
            statement.bind(authorization.expiresAt, at: 8)
            statement.bind(authorization.reason.rawValue, at: 9)
            statement.bind(authorization.purpose?.rawValue, at: 10)
            statement.bind(authorization.declinedLevels.map(\.rawValue).joined(separator: ","), at: 11)
            statement.bind(authorization.updatedAt, at: 12)
            statement.bind(authorization.version, at: 13)
            statement.bind(authorization.purposeLanguage?.rawValue, at: 14)
            statement.bind(authorization.buttonConfirmed, at: 15)
            statement.bind(authorization.purposeKey, at: 16)
            // The hash of the purpose string the user was shown (GDPR Art. 7(1)).
            statement.bind(authorization.purpose.map { AuditChain.sha256.purposeHash(of: $0.rawValue) }, at: 17)
        }
    }

    /// Decodes a row of `columns`.
    private static func decodeListedAuthorization(_ statement: Statement) throws -> StoredAuthorization {
        let user = UserID(trusted: try statement.requiredString(at: 0, "authorizations", "user"))
        let app = AppID(trusted: try statement.requiredString(at: 1, "authorizations", "app"))
        let service = ServiceID(trusted: try statement.requiredString(at: 2, "authorizations", "service"))
        return try decodeAuthorization(statement, user: user, app: app, service: service, offset: 3)
    }

    private static let statuses = RawValueTable(AuthorizationStatus.allCases, rawValue: \.rawValue)
    private static let reasons = RawValueTable(Reason.allCases, rawValue: \.rawValue)

    /// Decodes the columns from `status` on, starting at column `offset`.
    private static func decodeAuthorization(
        _ statement: Statement, user: UserID, app: AppID, service: ServiceID, offset: Int32
    ) throws -> StoredAuthorization {
        StoredAuthorization(
            user: user, app: app, service: service,
            status: try statement.enumeration(Self.statuses, at: offset, "authorizations", "status"),
            level: statement.string(at: offset + 1).map(Level.init(trusted:)),
            provisional: statement.bool(at: offset + 2),
            once: statement.bool(at: offset + 3),
            expiresAt: statement.date(at: offset + 4),
            reason: try statement.enumeration(Self.reasons, at: offset + 5, "authorizations", "reason"),
            purpose: statement.string(at: offset + 6).map(PurposeString.init(trusted:)),
            purposeLanguage: statement.string(at: offset + 10).map(LanguageTag.init(trusted:)),
            purposeKey: statement.string(at: offset + 12),
            declinedLevels: statement.list(at: offset + 7).map { Level(trusted: String($0)) },
            buttonConfirmed: statement.bool(at: offset + 11),
            updatedAt: statement.date(at: offset + 8),
            version: statement.int64(at: offset + 9))
    }
}
