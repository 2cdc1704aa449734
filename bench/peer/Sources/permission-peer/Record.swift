import Foundation
import GRDB

/// One authorization as the peer answers it: the fields and JSON keys of the service's answer,
/// with `level` only when present and `expiresAt` and `purpose` always (`null` when not set).
struct Record: Encodable, Sendable {
    var user: String
    var app: String
    var service: String
    var status: String
    var level: String?
    var provisional: Bool
    var once: Bool
    var expiresAt: Date?
    var reason: String
    var purpose: String?
    var updatedAt: Date
    var version: Int64

    /// A (user, app, service) with no stored row: not determined yet, as the service answers it.
    static func notDetermined(user: String, app: String, service: String) -> Record {
        Record(
            user: user, app: app, service: service, status: "notDetermined", level: nil, provisional: false,
            once: false, expiresAt: nil, reason: "default", purpose: nil, updatedAt: Date(timeIntervalSince1970: 0),
            version: 0)
    }

    /// The columns `init(row:)` reads, in a `SELECT` of the `authorizations` table.
    static let columns =
        "user, app, service, status, level, provisional, once, expires_at, reason, purpose, updated_at, version"

    private enum CodingKeys: String, CodingKey {
        case user, app, service, status, level, provisional, once, expiresAt, reason, purpose, updatedAt, version
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(user, forKey: .user)
        try c.encode(app, forKey: .app)
        try c.encode(service, forKey: .service)
        try c.encode(status, forKey: .status)
        try c.encodeIfPresent(level, forKey: .level)
        try c.encode(provisional, forKey: .provisional)
        try c.encode(once, forKey: .once)
        try c.encode(expiresAt, forKey: .expiresAt)
        try c.encode(reason, forKey: .reason)
        try c.encode(purpose, forKey: .purpose)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encode(version, forKey: .version)
    }
}

extension Record {
    /// A row of `columns`; the table keeps times as Unix milliseconds.
    init(row: Row) {
        let expiresAt: Int64? = row["expires_at"]
        let updatedAt: Int64? = row["updated_at"]
        self.init(
            user: row["user"], app: row["app"], service: row["service"], status: row["status"], level: row["level"],
            provisional: row["provisional"], once: row["once"],
            expiresAt: expiresAt.map(Self.date(unixMilliseconds:)), reason: row["reason"], purpose: row["purpose"],
            updatedAt: Self.date(unixMilliseconds: updatedAt ?? 0), version: row["version"])
    }

    /// The date of a stored time, half a millisecond in: the ISO 8601 formatter truncates to the
    /// millisecond, and the nearest `Double` to a whole millisecond may lie just below it.
    static func date(unixMilliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: (Double(unixMilliseconds) + 0.5) / 1000)
    }
}
