public import Foundation

/// Location alerts (SPEC §11, seed 004 "Location Alerts"): the system's reminder that an app
/// with Always location access has been using location in the background. Only the system
/// raises it, apps cannot opt out, it comes less often over time and starts over when the app
/// is updated.
extension Rules {
    /// The most a report may date a use ahead of the server's clock (the reporting device's
    /// clock may run a little fast).
    public static let backgroundUseClockSkew: TimeInterval = 60

    /// Whether (user, app) is eligible for location alerts (seed 004's table): its effective
    /// location authorization is the user's own `always`, provisional or given in settings.
    /// Never, While Using, Allow Once and Ask Next Time are not, nor an Always an allow policy
    /// gives: the alert's "Change to Only While Using" would change nothing the app gets.
    public static func locationAlertEligible(service: ServiceDefinition, effective: Authorization) -> Bool {
        service.specials.contains(.provisionalAlways) && effective.status == .authorized && !effective.once
            && effective.level == service.strongestLevel && effective.reason != .policy
    }

    /// Whether the user's own choice (`stored`, whatever policies and the Location Services
    /// switch make of it) is Always at `now`: while it is, an app kept from location alerts
    /// only by such an overlay keeps its schedule, whose intervals start over only when the app
    /// is updated (seed 004), not each time the switch or a policy comes and goes.
    public static func holdsOwnAlways(service: ServiceDefinition, stored: StoredAuthorization, now: Date) -> Bool {
        service.specials.contains(.provisionalAlways) && stored.status == .authorized && !stored.once
            && stored.level == service.strongestLevel && !stored.lapsed(at: now)
    }

    /// The schedule after one background use at `usedAt` was reported at `now` (the first use
    /// starts a schedule): the use counts towards the threshold when it came after the last
    /// alert, and into its hour of the last 3 days; the next alert's due time follows.
    /// - Parameters:
    ///   - appVersion: the app's registered version now; a schedule kept under another one
    ///     starts its intervals over first.
    /// - Throws: `invalidCombination` (field `usedAt`) for a use more than
    ///   ``backgroundUseClockSkew`` ahead of `now` or outside the last 3 days.
    public static func recordBackgroundUse(
        _ schedule: LocationAlertSchedule?, user: UserID, app: AppID, usedAt: Date, now: Date, appVersion: String?,
        settings: LocationAlertSettings
    ) throws(PermissionError) -> LocationAlertSchedule {
        try checkBackgroundUse(at: usedAt, now: now)
        let used = min(usedAt, now).truncatedToMilliseconds
        var next =
            schedule
            ?? LocationAlertSchedule(user: user, app: app, startedAt: used, appVersion: appVersion)
        if next.appVersion != appVersion {
            next = restartedLocationAlerts(next, appVersion: appVersion, settings: settings)
        }
        if next.lastAlertAt.map({ used > $0 }) ?? true {
            next.usesSinceAlert = min(next.usesSinceAlert + 1, Int(Int32.max))
        }
        let hour = LocationAlertSchedule.hour(of: used)
        let oldest = LocationAlertSchedule.firstRecentHour(before: now)
        var hours = next.recentUses.filter { $0.hour >= oldest }
        if let index = hours.firstIndex(where: { $0.hour == hour }) {
            hours[index].count = min(hours[index].count + 1, Int(Int32.max))
        } else {
            hours.append(LocationAlertSchedule.HourlyUses(hour: hour, count: 1))
            hours.sort { $0.hour < $1.hour }
        }
        next.recentUses = hours
        next.dueAt = locationAlertDue(next, settings: settings)
        return next
    }

    /// Refuses a use dated more than ``backgroundUseClockSkew`` ahead of `now` or 3 days or
    /// more before it.
    public static func checkBackgroundUse(at usedAt: Date, now: Date) throws(PermissionError) {
        guard usedAt.timeIntervalSince(now) <= backgroundUseClockSkew else {
            throw .invalidCombination(field: "usedAt", why: "must not be in the future")
        }
        guard now.timeIntervalSince(usedAt) < LocationAlertSchedule.recentWindow else {
            throw .invalidCombination(field: "usedAt", why: "must be within the past 3 days")
        }
    }

    /// When the next alert of `schedule` is due: the current interval after the last alert (or
    /// after the first use), once the uses since then reach the threshold; nil before that.
    public static func locationAlertDue(_ schedule: LocationAlertSchedule, settings: LocationAlertSettings) -> Date? {
        guard schedule.usesSinceAlert >= settings.threshold else { return nil }
        let base = schedule.lastAlertAt ?? schedule.startedAt
        return base.addingTimeInterval(settings.interval(afterAlerts: schedule.alertsShown)).truncatedToMilliseconds
    }

    /// `schedule` started over for an app updated to `appVersion`: the intervals begin again
    /// from the first, counted from the last alert.
    public static func restartedLocationAlerts(
        _ schedule: LocationAlertSchedule, appVersion: String?, settings: LocationAlertSettings
    ) -> LocationAlertSchedule {
        var next = schedule
        next.alertsShown = 0
        next.appVersion = appVersion
        next.dueAt = locationAlertDue(next, settings: settings)
        return next
    }

    /// `schedule` once an alert was issued at `now`: one more alert shown, the count since
    /// the last alert back to zero, nothing due until enough new uses come.
    public static func locationAlertIssued(_ schedule: LocationAlertSchedule, now: Date) -> LocationAlertSchedule {
        var next = schedule
        next.alertsShown += 1
        next.lastAlertAt = now.truncatedToMilliseconds
        next.usesSinceAlert = 0
        next.dueAt = nil
        return next
    }

    /// The location alert's prompt: `keepAlways` and `changeToWhileUsing`, the Always purpose
    /// string (the level's own, last key), and `uses`, the background uses of the last 3 days.
    /// Returns nil when the app no longer has that purpose string (it cannot be shown).
    public static func locationAlertPrompt(service: ServiceDefinition, app: App?, uses: Int) -> PromptPlan? {
        let level = service.strongestLevel
        guard let key = service.purposeKeys(for: level).last, let purpose = app?.purposeStrings[key] else { return nil }
        return PromptPlan(
            kind: .locationAlert, requestedLevel: level, options: options(kind: .locationAlert, level: level, service: service),
            purposeKey: key, purpose: purpose, backgroundUses: uses)
    }
}
