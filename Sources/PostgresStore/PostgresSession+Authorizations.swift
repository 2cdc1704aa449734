import Foundation
import PermissionDomain
import StoredRows

/// Authorization records: the hot-path point read, filtered listings, due grants, upsert.
extension PostgresSession {
    private static let columns = """
        user_id, app, service, status, level, provisional, once, expires_at, reason, purpose, \
        declined_levels, updated_at, version, purpose_language, button_confirmed, purpose_key
        """

    private static let selectOne = PreparedStatement(
        """
        SELECT status, level, provisional, once, expires_at, reason, purpose, declined_levels, updated_at, version,
            purpose_language, button_confirmed, purpose_key
        FROM authorizations WHERE user_id = $1 AND app = $2 AND service = $3
        """)

    /// Always one row: the record's columns (NULL when there is none), then the user's
    /// settings (NULL when never changed); two primary-key lookups in one statement.
    private static let selectOneWithSettings = PreparedStatement(
        """
        SELECT a.status, a.level, a.provisional, a.once, a.expires_at, a.reason, a.purpose, a.declined_levels,
            a.updated_at, a.version, a.purpose_language, a.button_confirmed, a.purpose_key,
            s.location_services_enabled, s.updated_at, s.locale
        FROM (SELECT 1) AS one
        LEFT JOIN authorizations AS a ON a.user_id = $1 AND a.app = $2 AND a.service = $3
        LEFT JOIN user_settings AS s ON s.user_id = $1
        """)

    private static let due = PreparedStatement(
        """
        SELECT \(columns) FROM authorizations
        WHERE expires_at IS NOT NULL AND expires_at <= $1 AND status = 'authorized'
        ORDER BY expires_at, user_id, app, service LIMIT $2
        """)

    private static let upsert = PreparedStatement(
        """
        INSERT INTO authorizations (\(columns), purpose_hash)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
        ON CONFLICT (user_id, app, service) DO UPDATE SET \(StoredAuthorization.upsertAssignments)
        """)

    private static let selectVersionFloor = PreparedStatement("SELECT version FROM version_floor WHERE id = 1")
    func versionFloor() throws -> Int64 {
        if let floor = versionFloorMemo?.value { return floor }
        guard let floor = try row(Self.selectVersionFloor, decode: { try $0.int64(at: 0) }) else {
            throw Self.corrupt("version_floor", "id")
        }
        versionFloorMemo?.remember(floor)
        return floor
    }

    /// Before an erasure: the batch reads the floor again after it, which the deletes raise
    /// (the `version_floor_raised` trigger, ``PostgresSchema/version8``).
    func forgetVersionFloor() {
        versionFloorMemo?.forget()
    }

    func authorization(user: UserID, app: AppID, service: ServiceID) throws -> StoredAuthorization? {
        try row(Self.selectOne, [.text(user.rawValue), .text(app.rawValue), .text(service.rawValue)]) {
            try Self.decodeAuthorization($0, user: user, app: app, service: service, offset: 0)
        }
    }

    func authorizationAndSettings(
        user: UserID, app: AppID, service: ServiceID, withSettings: Bool
    ) throws
        -> (stored: StoredAuthorization?, settings: UserSettings?)
    {
        guard withSettings else { return (try authorization(user: user, app: app, service: service), nil) }
        let found = try row(Self.selectOneWithSettings, [.text(user.rawValue), .text(app.rawValue), .text(service.rawValue)]) {
            row -> (StoredAuthorization?, UserSettings?) in
            // status is NOT NULL in the table, so NULL means no record.
            let stored =
                row.isNull(at: 0) ? nil : try Self.decodeAuthorization(row, user: user, app: app, service: service, offset: 0)
            let settings =
                row.isNull(at: 13)
                ? nil
                : UserSettings(
                    user: user, locationServicesEnabled: try row.bool(at: 13),
                    locale: row.optionalString(at: 15).map(LanguageTag.init(trusted:)), updatedAt: try row.date(14))
            return (stored, settings)
        }
        return found ?? (nil, nil)
    }

    func authorizations(
        matching filter: AuthorizationFilter, after: AuthorizationKey?, limit: Int
    ) throws
        -> [StoredAuthorization]
    {
        var clause = WhereClause()
        clause.equal("user_id", filter.user?.rawValue)
        clause.equal("app", filter.app?.rawValue)
        clause.equal("service", filter.service?.rawValue)
        clause.equal("status", filter.status?.rawValue)
        if let after {
            clause.add(
                "(user_id, app, service) > (?, ?, ?)",
                [.text(after.user.rawValue), .text(after.app.rawValue), .text(after.service.rawValue)])
        }
        let sql = """
            SELECT \(Self.columns) FROM authorizations \(clause.sql) ORDER BY user_id, app, service \
            LIMIT \(clause.nextPlaceholder)
            """
        return try rows(.cached(sql), clause.values + [Self.limit(limit)]) { try Self.decodeListed($0) }
    }

    func dueGrants(before date: Date, limit: Int) throws -> [StoredAuthorization] {
        try rows(Self.due, [.int64(date.millisecondsSince1970), Self.limit(limit)]) { try Self.decodeListed($0) }
    }

    func save(_ authorization: StoredAuthorization) throws {
        changes?.saved(AuthorizationKey(user: authorization.user, app: authorization.app, service: authorization.service))
        try run(
            Self.upsert,
            [
                .text(authorization.user.rawValue), .text(authorization.app.rawValue), .text(authorization.service.rawValue),
                .text(authorization.status.rawValue), .optional(authorization.level?.rawValue), .bool(authorization.provisional),
                .bool(authorization.once), .date(authorization.expiresAt), .text(authorization.reason.rawValue),
                .optional(authorization.purpose?.rawValue),
                .text(authorization.declinedLevels.map(\.rawValue).joined(separator: ",")), .date(authorization.updatedAt),
                .int64(authorization.version), .optional(authorization.purposeLanguage?.rawValue),
                .bool(authorization.buttonConfirmed), .optional(authorization.purposeKey),
                // The hash of the purpose string the user was shown (GDPR Art. 7(1)).
                .optional(authorization.purpose.map { AuditChain.sha256.purposeHash(of: $0.rawValue) }),
            ])
    }

    /// Decodes a row of `columns`.
    private static func decodeListed(_ row: PostgresRow) throws -> StoredAuthorization {
        let user = UserID(trusted: try row.required(0, "authorizations", "user_id"))
        let app = AppID(trusted: try row.required(1, "authorizations", "app"))
        let service = ServiceID(trusted: try row.required(2, "authorizations", "service"))
        return try decodeAuthorization(row, user: user, app: app, service: service, offset: 3)
    }

    /// Decodes the columns from `status` on, starting at column `offset`.
    private static func decodeAuthorization(
        _ row: PostgresRow, user: UserID, app: AppID, service: ServiceID, offset: Int
    ) throws -> StoredAuthorization {
        StoredAuthorization(
            user: user, app: app, service: service,
            status: try row.enumeration(AuthorizationStatus.self, at: offset, "authorizations", "status"),
            level: row.optionalString(at: offset + 1).map(Level.init(trusted:)),
            provisional: try row.bool(at: offset + 2),
            once: try row.bool(at: offset + 3),
            expiresAt: try row.date(offset + 4),
            reason: try row.enumeration(Reason.self, at: offset + 5, "authorizations", "reason"),
            purpose: row.optionalString(at: offset + 6).map(PurposeString.init(trusted:)),
            purposeLanguage: row.optionalString(at: offset + 10).map(LanguageTag.init(trusted:)),
            purposeKey: row.optionalString(at: offset + 12),
            declinedLevels: row.list(offset + 7).map { Level(trusted: String($0)) },
            buttonConfirmed: try row.bool(at: offset + 11),
            updatedAt: try row.date(offset + 8),
            version: try row.int64(at: offset + 9))
    }
}
