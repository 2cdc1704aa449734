import Foundation
import PermissionDomain
import StoredRows

/// Location alert schedules (SPEC §11): by (user, app), the due ones, one app's.
extension StoreSession {
    private static let columns = LocationAlertSchedule.storedColumns(user: "user")

    func locationAlertSchedule(user: UserID, app: AppID) throws -> LocationAlertSchedule? {
        try row("SELECT \(Self.columns) FROM location_alerts WHERE user = ?1 AND app = ?2") { statement in
            statement.bind(user.rawValue, at: 1)
            statement.bind(app.rawValue, at: 2)
        } decode: {
            try LocationAlertSchedule(storedColumns: $0)
        }
    }

    func dueLocationAlerts(before date: Date, limit: Int) throws -> [LocationAlertSchedule] {
        let sql = """
            SELECT \(Self.columns) FROM location_alerts
            WHERE due_at IS NOT NULL AND due_at <= ?1 ORDER BY due_at, user, app LIMIT ?2
            """
        return try rows(sql) { statement in
            statement.bind(date.millisecondsSince1970, at: 1)
            statement.bind(Self.limit(limit), at: 2)
        } decode: {
            try LocationAlertSchedule(storedColumns: $0)
        }
    }

    func locationAlertSchedules(app: AppID, after: UserID?, limit: Int) throws -> [LocationAlertSchedule] {
        let sql = "SELECT \(Self.columns) FROM location_alerts WHERE app = ?1 AND user > ?2 ORDER BY user LIMIT ?3"
        return try rows(sql) { statement in
            statement.bind(app.rawValue, at: 1)
            statement.bind(after?.rawValue ?? "", at: 2)
            statement.bind(Self.limit(limit), at: 3)
        } decode: {
            try LocationAlertSchedule(storedColumns: $0)
        }
    }

    func locationAlertSchedules(user: UserID, after: AppID?, limit: Int) throws -> [LocationAlertSchedule] {
        let sql = "SELECT \(Self.columns) FROM location_alerts WHERE user = ?1 AND app > ?2 ORDER BY app LIMIT ?3"
        return try rows(sql) { statement in
            statement.bind(user.rawValue, at: 1)
            statement.bind(after?.rawValue ?? "", at: 2)
            statement.bind(Self.limit(limit), at: 3)
        } decode: {
            try LocationAlertSchedule(storedColumns: $0)
        }
    }

    func save(_ schedule: LocationAlertSchedule) throws {
        try run(
            """
            INSERT INTO location_alerts (\(Self.columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT (user, app) DO UPDATE SET
                started_at = excluded.started_at, alerts_shown = excluded.alerts_shown,
                last_alert_at = excluded.last_alert_at, uses_since_alert = excluded.uses_since_alert,
                recent_uses = excluded.recent_uses, due_at = excluded.due_at, app_version = excluded.app_version
            """
        ) { statement in
            statement.bind(schedule.user.rawValue, at: 1)
            statement.bind(schedule.app.rawValue, at: 2)
            statement.bind(schedule.startedAt.millisecondsSince1970, at: 3)
            statement.bind(schedule.alertsShown, at: 4)
            statement.bind(schedule.lastAlertAt, at: 5)
            statement.bind(schedule.usesSinceAlert, at: 6)
            statement.bind(schedule.storedRecentUses, at: 7)
            statement.bind(schedule.dueAt, at: 8)
            statement.bind(schedule.appVersion, at: 9)
        }
    }

    func deleteLocationAlertSchedule(user: UserID, app: AppID) throws {
        try run("DELETE FROM location_alerts WHERE user = ?1 AND app = ?2") { statement in
            statement.bind(user.rawValue, at: 1)
            statement.bind(app.rawValue, at: 2)
        }
    }
}
