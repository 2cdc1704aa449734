import Foundation
import PermissionDomain
import TestSupport
import Testing

/// The location alerts' schedule (SPEC §11, seed 004 "Location Alerts") as pure rules with a
/// fixed clock: who is eligible, when an alert is due, how the intervals grow and start over.
@Suite struct LocationAlertRuleTests {
    private static let t0 = Fixtures.t0
    private static let day: TimeInterval = 86_400
    private static let settings = LocationAlertSettings()
    private static let location = Catalogue.location

    private func use(
        _ schedule: LocationAlertSchedule?, at usedAt: Date, now: Date? = nil, version: String? = nil,
        settings: LocationAlertSettings = Self.settings
    ) throws -> LocationAlertSchedule {
        try Rules.recordBackgroundUse(
            schedule, user: Fixtures.user, app: Fixtures.app, usedAt: usedAt, now: now ?? usedAt, appVersion: version,
            settings: settings)
    }

    /// Seed 004's table: only Always, provisional or given in settings, is eligible.
    @Test func onlyAlwaysIsEligible() {
        func eligible(_ stored: StoredAuthorization) -> Bool {
            Rules.locationAlertEligible(service: Self.location, effective: Fixtures.plain(stored))
        }
        #expect(eligible(Fixtures.stored(.location, .authorized, .always)))
        #expect(eligible(Fixtures.stored(.location, .authorized, .always, provisional: true)))
        #expect(!eligible(Fixtures.stored(.location, .authorized, .whenInUse)))
        #expect(!eligible(Fixtures.stored(.location, .authorized, .whenInUse, once: true, expiresAt: Self.t0 + 60)))
        #expect(!eligible(Fixtures.stored(.location, .denied)))
        #expect(!eligible(Fixtures.stored(.location, .notDetermined)))
        let restricted = Rules.effective(
            stored: Fixtures.stored(.location, .authorized, .always), service: Self.location,
            policies: [Fixtures.policy("mdm", .location, .restrict)], settings: nil, now: Self.t0)
        #expect(!Rules.locationAlertEligible(service: Self.location, effective: restricted))
        let off = Rules.effective(
            stored: Fixtures.stored(.location, .authorized, .always), service: Self.location, policies: [],
            settings: UserSettings(user: Fixtures.user, locationServicesEnabled: false), now: Self.t0)
        #expect(!Rules.locationAlertEligible(service: Self.location, effective: off), "Location Services off")
        #expect(
            !Rules.locationAlertEligible(
                service: Fixtures.service(.camera), effective: Fixtures.plain(Fixtures.stored(.camera, .authorized, .full))))
    }

    /// The first use starts the schedule; the first alert is due one interval after it.
    @Test func theFirstAlertIsDueOneIntervalAfterTheFirstUse() throws {
        let first = try use(nil, at: Self.t0)
        #expect(first.startedAt == Self.t0 && first.usesSinceAlert == 1 && first.alertsShown == 0)
        #expect(first.dueAt == Self.t0 + 3 * Self.day)
        #expect(first.uses(inWindowBefore: Self.t0) == 1)
        let second = try use(first, at: Self.t0 + 3_600)
        #expect(second.usesSinceAlert == 2 && second.dueAt == Self.t0 + 3 * Self.day, "more uses do not move it")
        #expect(second.recentUses.map(\.count) == [1, 1], "two hours")
        let sameHour = try use(second, at: Self.t0 + 3_601)
        #expect(sameHour.recentUses.map(\.count) == [1, 2])
        #expect(sameHour.uses(inWindowBefore: Self.t0 + 3_601) == 3)
    }

    /// Below the threshold nothing is due; at it the interval counts from the start.
    @Test func nothingIsDueBelowTheThreshold() throws {
        let settings = LocationAlertSettings(threshold: 3)
        var schedule = try use(nil, at: Self.t0, settings: settings)
        #expect(schedule.dueAt == nil)
        schedule = try use(schedule, at: Self.t0 + 10, settings: settings)
        #expect(schedule.dueAt == nil)
        schedule = try use(schedule, at: Self.t0 + 20, settings: settings)
        #expect(schedule.dueAt == Self.t0 + 3 * Self.day)
    }

    /// Each alert moves to the next interval, 3, 7, 14, 30 days, and the last repeats; the
    /// count since the alert starts at zero, so the next one waits for a new use.
    @Test func intervalsGrowAfterEachAlertAndTheLastRepeats() throws {
        var schedule = try use(nil, at: Self.t0)
        var alertAt = Self.t0
        var gaps: [TimeInterval] = []
        for _ in 0..<6 {
            let due = try #require(schedule.dueAt)
            gaps.append(due.timeIntervalSince(alertAt) / Self.day)
            alertAt = due
            schedule = Rules.locationAlertIssued(schedule, now: due)
            #expect(schedule.usesSinceAlert == 0 && schedule.dueAt == nil && schedule.lastAlertAt == due)
            schedule = try use(schedule, at: due + 60)
        }
        #expect(gaps == [3, 7, 14, 30, 30, 30])
        #expect(schedule.alertsShown == 6)
    }

    /// A use before the last alert (reported late) counts into the last 3 days, not towards
    /// the next alert.
    @Test func aLateReportOfAUseBeforeTheLastAlertDoesNotCountTowardsTheNext() throws {
        let alerted = Rules.locationAlertIssued(try use(nil, at: Self.t0), now: Self.t0 + 3 * Self.day)
        let late = try use(alerted, at: Self.t0 + 3 * Self.day - 60, now: Self.t0 + 3 * Self.day + 60)
        #expect(late.usesSinceAlert == 0 && late.dueAt == nil)
        #expect(late.uses(inWindowBefore: Self.t0 + 3 * Self.day + 60) == 2)
    }

    /// An app update starts the intervals over, from the last alert.
    @Test func anAppUpdateStartsTheIntervalsOver() throws {
        var schedule = try use(nil, at: Self.t0, version: "1.0")
        for _ in 0..<3 {
            schedule = Rules.locationAlertIssued(schedule, now: try #require(schedule.dueAt))
            schedule = try use(schedule, at: schedule.lastAlertAt! + 60, version: "1.0")
        }
        let last = try #require(schedule.lastAlertAt)
        #expect(schedule.dueAt == last + 30 * Self.day)
        let updated = Rules.restartedLocationAlerts(schedule, appVersion: "2.0", settings: Self.settings)
        #expect(updated.alertsShown == 0 && updated.appVersion == "2.0" && updated.dueAt == last + 3 * Self.day)
        // A use reported under a new version restarts a schedule kept under the old one.
        let reported = try use(schedule, at: last + 120, version: "2.0")
        #expect(reported.alertsShown == 0 && reported.dueAt == last + 3 * Self.day)
    }

    /// The last 3 days, to the hour: older hours drop out of the count and the stored list.
    @Test func onlyTheLastThreeDaysAreCountedAndKept() throws {
        var schedule = try use(nil, at: Self.t0)
        schedule = try use(schedule, at: Self.t0 + Self.day)
        schedule = try use(schedule, at: Self.t0 + 2 * Self.day)
        #expect(schedule.uses(inWindowBefore: Self.t0 + 2 * Self.day) == 3)
        #expect(schedule.uses(inWindowBefore: Self.t0 + 3.5 * Self.day) == 2)
        schedule = try use(schedule, at: Self.t0 + 3.5 * Self.day)
        #expect(schedule.recentUses.count == 3, "the first day's hour is dropped")
        #expect(schedule.usesSinceAlert == 4, "while every use since the start still counts towards the alert")
    }

    /// A use in the future (beyond a minute of clock skew) or 3 days ago or more is refused.
    @Test func usesOutsideTheWindowAreRefused() throws {
        #expect(throws: PermissionError.invalidCombination(field: "usedAt", why: "must not be in the future")) {
            try use(nil, at: Self.t0 + 61, now: Self.t0)
        }
        #expect(throws: PermissionError.invalidCombination(field: "usedAt", why: "must be within the past 3 days")) {
            try use(nil, at: Self.t0 - 3 * Self.day, now: Self.t0)
        }
        let skewed = try use(nil, at: Self.t0 + 30, now: Self.t0)
        #expect(skewed.startedAt == Self.t0, "a use a little ahead is taken as now")
        _ = try use(nil, at: Self.t0 - 3 * Self.day + 1, now: Self.t0)
    }

    /// The alert's prompt: its two choices, the Always purpose string, the count.
    @Test func theAlertShowsTheAlwaysPurposeStringAndTheCount() throws {
        let plan = try #require(Rules.locationAlertPrompt(service: Self.location, app: Fixtures.registeredApp(), uses: 14))
        #expect(plan.kind == .locationAlert && plan.options == [.keepAlways, .changeToWhileUsing])
        #expect(plan.purposeKey == "NSLocationAlwaysAndWhenInUseUsageDescription" && plan.backgroundUses == 14)
        #expect(plan.requestedLevel == .always)
        let without = Fixtures.registeredApp(without: ["NSLocationAlwaysAndWhenInUseUsageDescription"])
        #expect(Rules.locationAlertPrompt(service: Self.location, app: without, uses: 1) == nil)
        #expect(Rules.locationAlertPrompt(service: Self.location, app: nil, uses: 1) == nil)
    }

    /// `keepAlways` keeps an explicit grant as it is and makes a provisional one final (SPEC §4:
    /// an explicit choice ends the provisional flow); `changeToWhileUsing` grants whenInUse.
    @Test func theAnswersDoWhatTheySay() throws {
        let plan = try #require(Rules.locationAlertPrompt(service: Self.location, app: Fixtures.registeredApp(), uses: 2))
        let prompt = Prompt(
            id: try PromptID("p-alert"), user: Fixtures.user, app: Fixtures.app, service: .location, kind: .locationAlert,
            requestedLevel: .always, options: plan.options, purpose: plan.purpose, purposeKey: plan.purposeKey,
            state: .pending, createdAt: Self.t0, expiresAt: Self.t0 + 600, backgroundUses: 2)
        for stored in [
            Fixtures.stored(.location, .authorized, .always, reason: .userSet, version: 3),
            Fixtures.stored(.location, .authorized, .always, provisional: true, reason: .userConsent, version: 2),
        ] {
            let kept = try Rules.decide(
                prompt: prompt, choice: .keepAlways, stored: stored, service: Self.location, now: Self.t0, onceTTL: 3600)
            if stored.provisional {
                var final = stored
                final.provisional = false
                final.purpose = plan.purpose
                final.purposeKey = plan.purposeKey
                #expect(kept == final, "not provisional, under the Always text the alert showed")
            } else {
                #expect(kept == stored)
            }
            let narrowed = try Rules.decide(
                prompt: prompt, choice: .changeToWhileUsing, stored: stored, service: Self.location, now: Self.t0,
                onceTTL: 3600)
            #expect(narrowed.status == .authorized && narrowed.level == .whenInUse && !narrowed.provisional)
            #expect(narrowed.reason == .userConsent && narrowed.purpose == plan.purpose)
        }
        #expect(throws: PermissionError.self) {
            try Rules.decide(
                prompt: prompt, choice: .deny, stored: Fixtures.stored(.location, .authorized, .always),
                service: Self.location, now: Self.t0, onceTTL: 3600)
        }
        #expect(throws: PermissionError.self) {
            try Rules.decide(
                prompt: prompt, choice: .keepAlways, stored: Fixtures.stored(.location, .authorized, .always),
                service: Self.location, now: Self.t0, onceTTL: 3600, until: Self.t0 + 3600)
        }
    }

    /// `--location-alert-intervals`: days by default, or with a unit; bad lists are refused.
    @Test func intervalListsParse() {
        #expect(LocationAlertSettings.intervals(parsing: "3,7,14,30") == [3, 7, 14, 30].map { $0 * Self.day })
        #expect(LocationAlertSettings.intervals(parsing: "2s, 1m,3h,1d") == [2, 60, 10_800, Self.day])
        for bad in ["", "0", "0s", "1x", "-1", "1.5", "3,,7", "s", "3651", String(repeating: "1,", count: 32) + "1"] {
            #expect(LocationAlertSettings.intervals(parsing: bad) == nil, "\(bad)")
        }
        #expect(LocationAlertSettings.intervals(parsing: "3650") == [3_650 * Self.day])
        let settings = LocationAlertSettings(intervals: [1, 2])
        #expect(settings.interval(afterAlerts: 0) == 1 && settings.interval(afterAlerts: 1) == 2)
        #expect(settings.interval(afterAlerts: 9) == 2)
    }
}
