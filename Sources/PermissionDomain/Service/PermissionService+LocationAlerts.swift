import Foundation

/// Location alerts (SPEC §11, seed 004): background uses kept per (user, app) while the app
/// holds Always, and the system's `locationAlert` prompt when one is due.
extension PermissionService {
    /// Keeps one background use at `usedAt` for an app eligible for location alerts. For one
    /// that is not, the use is not kept, and the app's schedule goes unless the user's own
    /// choice is still Always (``Rules/holdsOwnAlways(service:stored:now:)``: only Location
    /// Services off or a policy keep the alerts away). Returns whether the use was kept.
    /// - Throws: `PermissionError.invalidCombination` (`usedAt`), whatever the eligibility.
    func recordBackgroundUse(
        _ writer: any PermissionWriter, loaded: LoadedAuthorization, app: App?, usedAt: Date, now: Date
    ) throws -> Bool {
        try Rules.checkBackgroundUse(at: usedAt, now: now)
        let key = loaded.stored.key
        let existing = try writer.locationAlertSchedule(user: key.user, app: key.app)
        guard Rules.locationAlertEligible(service: loaded.service, effective: loaded.effective) else {
            if existing != nil, !Rules.holdsOwnAlways(service: loaded.service, stored: loaded.stored, now: now) {
                try writer.deleteLocationAlertSchedule(user: key.user, app: key.app)
            }
            return false
        }
        let next = try Rules.recordBackgroundUse(
            existing, user: key.user, app: key.app, usedAt: usedAt, now: now, appVersion: app?.version,
            settings: configuration.locationAlerts)
        try writer.save(next)
        return true
    }

    /// Issues the location alerts due at `context.now` (actor `system`), at most `limit`
    /// schedules looked at. For each due schedule:
    /// - the app no longer eligible (no Always grant) → no alert, and the schedule goes, unless
    ///   the user's own choice is still Always (Location Services off, a policy): then it waits
    ///   for the next use;
    /// - another prompt of the location record pending → put off until it ends
    ///   (``locationPromptEnded(_:_:)``, or its deadline);
    /// - no use in the last 3 days, the uses below the threshold (it was raised), or the
    ///   app without the Always purpose string → nothing due until the next use;
    /// - else a `locationAlert` prompt showing the uses of the last 3 days, and the schedule
    ///   moves on to the next interval.
    func sweepLocationAlerts(
        _ writer: any PermissionWriter, context: ChangeContext, limit: Int, into result: inout SweepResult
    ) throws {
        let service = Catalogue.location
        let settings = configuration.locationAlerts
        for schedule in try writer.dueLocationAlerts(before: context.now, limit: limit) {
            let loaded = try load(writer, user: schedule.user, app: schedule.app, service: service, now: context.now)
            var next = schedule
            guard Rules.locationAlertEligible(service: service, effective: loaded.effective) else {
                if Rules.holdsOwnAlways(service: service, stored: loaded.stored, now: context.now) {
                    next.dueAt = nil
                    try writer.save(next)
                } else {
                    try writer.deleteLocationAlertSchedule(user: schedule.user, app: schedule.app)
                }
                result.locationAlertsPutOff += 1
                continue
            }
            if let pending = try writer.pendingPrompt(user: schedule.user, app: schedule.app, service: service.id) {
                if pending.effectiveState(at: context.now) == .pending {
                    next.dueAt = pending.expiresAt
                    try writer.save(next)
                    result.locationAlertsPutOff += 1
                    continue
                }
                try end(writer, prompt: pending, as: .expired, context: context)
                result.expiredPrompts += 1
            }
            let uses = schedule.uses(inWindowBefore: context.now)
            guard uses > 0, schedule.usesSinceAlert >= settings.threshold,
                let plan = Rules.locationAlertPrompt(service: service, app: try writer.app(schedule.app), uses: uses)
            else {
                next.dueAt = nil
                try writer.save(next)
                result.locationAlertsPutOff += 1
                continue
            }
            _ = try issue(writer, plan: plan, key: loaded.stored.key, context: context)
            try writer.save(Rules.locationAlertIssued(schedule, now: context.now))
            result.locationAlerts += 1
        }
    }

    /// A prompt of the location record of (user, app) ended: a location alert put off for it
    /// (its schedule due at the prompt's deadline) is due again at its own time.
    func locationPromptEnded(_ writer: any PermissionWriter, _ prompt: Prompt) throws {
        guard prompt.service == Catalogue.location.id,
            var schedule = try writer.locationAlertSchedule(user: prompt.user, app: prompt.app)
        else { return }
        let due = Rules.locationAlertDue(schedule, settings: configuration.locationAlerts)
        guard schedule.dueAt != nil, schedule.dueAt != due else { return }
        schedule.dueAt = due
        try writer.save(schedule)
    }

    /// Starts the location alert intervals of every user of `app` over (the app was updated
    /// to `version`), paging through its schedules.
    func restartLocationAlerts(_ writer: any PermissionWriter, app: AppID, version: String?) throws {
        var after: UserID?
        while true {
            let page = try writer.locationAlertSchedules(app: app, after: after, limit: 100)
            for schedule in page where schedule.appVersion != version {
                try writer.save(
                    Rules.restartedLocationAlerts(schedule, appVersion: version, settings: configuration.locationAlerts))
            }
            guard page.count == 100, let last = page.last else { return }
            after = last.user
        }
    }
}
