import Foundation
import PermissionDomain
import StoredRows

/// Location alert schedules (SPEC §11): by (user, app), the due ones, one app's.
extension PostgresSession {
    private static let columns = LocationAlertSchedule.storedColumns(user: "user_id")
    private static let selectOne = PreparedStatement(
        "SELECT \(columns) FROM location_alerts WHERE user_id = $1 AND app = $2")
    private static let selectDue = PreparedStatement(
        """
        SELECT \(columns) FROM location_alerts
        WHERE due_at IS NOT NULL AND due_at <= $1 ORDER BY due_at, user_id, app LIMIT $2
        """)
    private static let selectOfApp = PreparedStatement(
        "SELECT \(columns) FROM location_alerts WHERE app = $1 AND user_id > $2 ORDER BY user_id LIMIT $3")
    private static let selectOfUser = PreparedStatement(
        "SELECT \(columns) FROM location_alerts WHERE user_id = $1 AND app > $2 ORDER BY app LIMIT $3")
    private static let upsert = PreparedStatement(
        """
        INSERT INTO location_alerts (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
        ON CONFLICT (user_id, app) DO UPDATE SET
            started_at = excluded.started_at, alerts_shown = excluded.alerts_shown,
            last_alert_at = excluded.last_alert_at, uses_since_alert = excluded.uses_since_alert,
            recent_uses = excluded.recent_uses, due_at = excluded.due_at, app_version = excluded.app_version
        """)
    private static let deleteOne = PreparedStatement("DELETE FROM location_alerts WHERE user_id = $1 AND app = $2")

    func locationAlertSchedule(user: UserID, app: AppID) throws -> LocationAlertSchedule? {
        try row(Self.selectOne, [.text(user.rawValue), .text(app.rawValue)]) {
            try LocationAlertSchedule(storedColumns: $0)
        }
    }

    func dueLocationAlerts(before date: Date, limit: Int) throws -> [LocationAlertSchedule] {
        try rows(Self.selectDue, [.int64(date.millisecondsSince1970), Self.limit(limit)]) {
            try LocationAlertSchedule(storedColumns: $0)
        }
    }

    func locationAlertSchedules(app: AppID, after: UserID?, limit: Int) throws -> [LocationAlertSchedule] {
        try rows(Self.selectOfApp, [.text(app.rawValue), .text(after?.rawValue ?? ""), Self.limit(limit)]) {
            try LocationAlertSchedule(storedColumns: $0)
        }
    }

    func locationAlertSchedules(user: UserID, after: AppID?, limit: Int) throws -> [LocationAlertSchedule] {
        try rows(Self.selectOfUser, [.text(user.rawValue), .text(after?.rawValue ?? ""), Self.limit(limit)]) {
            try LocationAlertSchedule(storedColumns: $0)
        }
    }

    func save(_ schedule: LocationAlertSchedule) throws {
        try run(
            Self.upsert,
            [
                .text(schedule.user.rawValue), .text(schedule.app.rawValue),
                .int64(schedule.startedAt.millisecondsSince1970), .int64(Int64(schedule.alertsShown)),
                .date(schedule.lastAlertAt), .int64(Int64(schedule.usesSinceAlert)), .text(schedule.storedRecentUses),
                .date(schedule.dueAt), .optional(schedule.appVersion),
            ])
    }

    func deleteLocationAlertSchedule(user: UserID, app: AppID) throws {
        try run(Self.deleteOne, [.text(user.rawValue), .text(app.rawValue)])
    }
}
