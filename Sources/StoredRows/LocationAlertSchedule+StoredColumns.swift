internal import Foundation
package import PermissionDomain

extension LocationAlertSchedule {
    /// The columns both stores select, in this order.
    package static func storedColumns(user: String) -> String {
        "\(user), app, started_at, alerts_shown, last_alert_at, uses_since_alert, recent_uses, due_at, app_version"
    }

    /// Decodes a stored schedule from ``storedColumns(user:)``.
    /// - Throws: the store's corruption error for a value that does not parse.
    package init(storedColumns row: some StoredColumns) throws {
        guard let recent = Self.recentUses(storedAs: row.list(6)) else {
            throw row.corrupt("location_alerts", "recent_uses")
        }
        guard let shown = try row.integer(3), shown >= 0, let uses = try row.integer(5), uses >= 0 else {
            throw row.corrupt("location_alerts", "alerts_shown")
        }
        self.init(
            user: UserID(trusted: try row.required(0, "location_alerts", row.userColumn)),
            app: AppID(trusted: try row.required(1, "location_alerts", "app")),
            startedAt: try row.date(2) ?? Date(millisecondsSince1970: 0),
            alertsShown: Int(shown), lastAlertAt: try row.date(4), usesSinceAlert: Int(uses), recentUses: recent,
            dueAt: try row.date(7), appVersion: row.text(8))
    }

    /// `recentUses` as stored: `hour:count` pairs, comma-joined.
    package var storedRecentUses: String {
        recentUses.map { "\($0.hour):\($0.count)" }.joined(separator: ",")
    }

    private static func recentUses(storedAs parts: [Substring]) -> [HourlyUses]? {
        var hours: [HourlyUses] = []
        for part in parts {
            let pair = part.split(separator: ":")
            guard pair.count == 2, let hour = Int64(pair[0]), let count = Int(pair[1]), count > 0 else { return nil }
            hours.append(HourlyUses(hour: hour, count: count))
        }
        return hours
    }
}
