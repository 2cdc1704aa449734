public import Foundation

/// When the system next reminds a user that an app with Always location access has been using
/// it in the background (SPEC §11 "Location alerts", seed 004 "Location Alerts"): one per
/// (user, app), kept only while the app holds `always`. It counts the background uses the
/// consent side reports (times only, no places) and the alerts shown since the schedule
/// started over; ``Rules`` decides from it when the next alert is due.
public struct LocationAlertSchedule: Hashable, Sendable {
    /// The background uses of one hour: `hour` is the hour since 1970 (UTC) the uses fell in.
    public struct HourlyUses: Hashable, Sendable {
        public var hour: Int64
        public var count: Int

        public init(hour: Int64, count: Int) {
            self.hour = hour
            self.count = count
        }

        /// When the hour starts.
        public var start: Date { Date(timeIntervalSince1970: TimeInterval(hour) * 3_600) }
    }

    /// How far back a location alert counts uses, and how far back a report may date a use:
    /// iOS shows the last 3 days.
    public static let recentWindow: TimeInterval = 3 * 86_400

    public let user: UserID
    public let app: AppID
    /// When the first use of this schedule was reported (the first interval runs from it).
    public var startedAt: Date
    /// Alerts issued since the schedule started or last started over (an app update); it picks
    /// the interval to the next one.
    public var alertsShown: Int
    /// When the last alert was issued; nil before the first.
    public var lastAlertAt: Date?
    /// Background uses reported since the last alert (or since the start), counting towards the
    /// threshold.
    public var usesSinceAlert: Int
    /// Uses per hour over the last ``recentWindow`` (older hours dropped), sorted by hour: what
    /// an alert's count comes from.
    public var recentUses: [HourlyUses]
    /// When the next alert is due: set once `usesSinceAlert` reaches the threshold, nil while
    /// nothing is due. The scheduler looks only at schedules that are due.
    public var dueAt: Date?
    /// The app's registered version the count of `alertsShown` belongs to.
    public var appVersion: String?

    public init(
        user: UserID, app: AppID, startedAt: Date, alertsShown: Int = 0, lastAlertAt: Date? = nil,
        usesSinceAlert: Int = 0, recentUses: [HourlyUses] = [], dueAt: Date? = nil, appVersion: String? = nil
    ) {
        self.user = user
        self.app = app
        self.startedAt = startedAt.truncatedToMilliseconds
        self.alertsShown = alertsShown
        self.lastAlertAt = lastAlertAt?.truncatedToMilliseconds
        self.usesSinceAlert = usesSinceAlert
        self.recentUses = recentUses
        self.dueAt = dueAt?.truncatedToMilliseconds
        self.appVersion = appVersion
    }

    /// The hour since 1970 that `date` falls in.
    public static func hour(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 3_600).rounded(.down))
    }

    /// The first hour of ``recentWindow`` before `now`: older hours are neither counted nor kept.
    public static func firstRecentHour(before now: Date) -> Int64 {
        hour(of: now.addingTimeInterval(-recentWindow))
    }

    /// Background uses within ``recentWindow`` before `now` (to the hour).
    public func uses(inWindowBefore now: Date) -> Int {
        let first = Self.firstRecentHour(before: now)
        return recentUses.reduce(0) { $1.hour >= first ? $0 + $1.count : $0 }
    }
}
