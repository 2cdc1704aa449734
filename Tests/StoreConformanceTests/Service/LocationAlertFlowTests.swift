import Dispatch
import Foundation
import PermissionDomain
import Synchronization
import TestSupport
import Testing

/// Location alerts (SPEC §11, seed 004) on both stores with a manual clock: background uses
/// kept only for Always grants, exactly one alert per interval from the system's sweep, the
/// intervals growing and starting over with an app update, both answers, and every other way
/// the alert ends.
@Suite struct LocationAlertFlowTests {
    private static let t0 = Fixtures.t0
    private static let day: TimeInterval = 86_400

    private func always(_ h: Harness, provisional: Bool = false) throws {
        if provisional {
            _ = try h.grant(.location, .always, .allowWhileUsing)
        } else {
            _ = try h.service.setAuthorization(
                user: h.user, app: h.app, service: .location, status: .authorized, level: .always, actor: h.consent,
                requestId: "s")
        }
    }

    @discardableResult
    private func used(_ h: Harness, at usedAt: Date? = nil) throws -> LifecycleOutcome {
        try h.service.lifecycle(
            user: h.user, app: h.app, event: .backgroundLocationUsed, usedAt: usedAt, actor: h.consent, requestId: "u")
    }

    private func pendingAlert(_ h: Harness) throws -> Prompt? {
        let pending = try h.service.prompts(
            matching: PromptFilter(user: h.user, state: .pending), after: nil, limit: 10
        ).items
        return pending.first { $0.kind == .locationAlert }
    }

    @Test(arguments: StoreKind.allCases) func anEligibleAppGetsExactlyOneAlertPerInterval(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try always(h)
        #expect(try used(h).usageRecorded == true)
        try used(h, at: Self.t0 - 3_600)
        h.clock.advance(by: 3 * Self.day - 1)
        #expect(try h.service.sweep() == SweepResult(), "not before the first interval")
        h.clock.advance(by: 1)
        let seq = try h.auditLog().count
        #expect(try h.service.sweep() == SweepResult(locationAlerts: 1))
        #expect(try h.service.sweep() == SweepResult(), "exactly one")
        let alert = try #require(try pendingAlert(h))
        #expect(alert.options == [.keepAlways, .changeToWhileUsing] && alert.requestedLevel == .always)
        #expect(alert.purposeKey == "NSLocationAlwaysAndWhenInUseUsageDescription")
        #expect(alert.backgroundUses == 1, "the use an hour before the first fell out of the 3 days")
        let entry = try #require(try h.auditLog().last)
        #expect(try h.auditLog().count == seq + 1)
        #expect(entry.action == .promptCreated && entry.actor == .system && entry.promptId == alert.id)
        #expect(entry.detail["kind"] == "locationAlert" && entry.detail["backgroundUses"] == "1")
        #expect(try h.service.prompt(id: alert.id).backgroundUses == 1, "the count is stored with the prompt")

        // The next one: 7 days after the first, and only with a new use.
        h.clock.advance(by: 7 * Self.day)
        #expect(try h.service.sweep().locationAlerts == 0, "no use since the alert")
        try used(h)
        try used(h)
        #expect(try h.service.sweep().locationAlerts == 1, "the interval has passed: at the next sweep")
        #expect(try pendingAlert(h)?.backgroundUses == 2)
        h.clock.advance(by: 14 * Self.day - 1)
        try used(h)
        #expect(try h.service.sweep().locationAlerts == 0)
        h.clock.advance(by: 1)
        #expect(try h.service.sweep().locationAlerts == 1, "14 days after the second")
        // Uses that all lie beyond the last 3 days when the interval ends bring no alert.
        h.clock.advance(by: 1)
        try used(h)
        h.clock.advance(by: 30 * Self.day)
        #expect(try h.service.sweep() == SweepResult(expiredPrompts: 1, locationAlertsPutOff: 1))
        #expect(try h.service.sweep() == SweepResult(), "nothing due until the next use")
        try used(h)
        #expect(try h.service.sweep().locationAlerts == 1)
    }

    @Test(arguments: StoreKind.allCases) func ineligibleAppsGetNoneAndTheirUsesAreNotKept(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        #expect(try used(h).usageRecorded == false, "notDetermined")
        _ = try h.grant(.location, .whenInUse, .allowWhileUsing)
        #expect(try used(h).usageRecorded == false, "While Using")
        _ = try h.service.setAuthorization(
            user: h.user, app: h.app, service: .location, status: .denied, level: nil, actor: h.consent, requestId: "s")
        #expect(try used(h).usageRecorded == false, "Never")
        #expect(try h.service.locationAlertSchedule(user: h.user, app: h.app) == nil)
        h.clock.advance(by: 60 * Self.day)
        #expect(try h.service.sweep() == SweepResult())
        #expect(try pendingAlert(h) == nil)
    }

    @Test(arguments: StoreKind.allCases) func aProvisionalAlwaysIsEligibleAfterItsUpgradePrompt(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try always(h, provisional: true)
        let outcome = try used(h)
        let upgrade = try #require(outcome.prompt)
        #expect(upgrade.kind == .upgrade && outcome.usageRecorded == true)
        h.clock.advance(by: 3 * Self.day)
        #expect(
            try h.service.sweep() == SweepResult(expiredPrompts: 1, locationAlerts: 1),
            "the upgrade prompt expires first, then the alert comes")
        #expect(try pendingAlert(h) != nil)
    }

    /// Keep Always on a provisional grant's alert is the explicit choice that ends the
    /// provisional flow (SPEC §4): the next background use brings no upgrade prompt back.
    @Test(arguments: StoreKind.allCases) func keepAlwaysMakesAProvisionalGrantFinal(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try always(h, provisional: true)
        _ = try #require(try used(h).prompt)  // the upgrade prompt, left to expire
        h.clock.advance(by: 3 * Self.day)
        #expect(try h.service.sweep().locationAlerts == 1)
        let alert = try #require(try pendingAlert(h))
        let kept = try h.service.decide(promptID: alert.id, choice: "keepAlways", actor: h.consent, requestId: "k")
        #expect(kept.authorization.status == .authorized && kept.authorization.level == .always)
        #expect(!kept.authorization.provisional && kept.authorization.purpose == alert.purpose)
        let after = try used(h)
        #expect(after.prompt == nil && after.usageRecorded == true, "no upgrade prompt: Always is final")
    }

    @Test(arguments: StoreKind.allCases) func aPendingPromptPutsTheAlertOffUntilItEnds(_ kind: StoreKind) throws {
        let h = try Harness(kind, promptTTL: 30 * 86_400)
        try always(h, provisional: true)
        let upgrade = try #require(try used(h).prompt)
        h.clock.advance(by: 3 * Self.day)
        #expect(try h.service.sweep() == SweepResult(locationAlertsPutOff: 1))
        #expect(try h.service.sweep() == SweepResult(), "put off: not looked at every second")
        _ = try h.service.decide(promptID: upgrade.id, choice: "changeToAlways", actor: h.consent, requestId: "d")
        #expect(try h.service.sweep().locationAlerts == 1, "due again once the upgrade prompt is answered")
    }

    @Test(arguments: StoreKind.allCases) func bothAnswersDoWhatTheySayAndAreAudited(_ kind: StoreKind) throws {
        let h = try Harness(kind, locationAlerts: LocationAlertSettings(intervals: [60]))
        try always(h)
        try used(h)
        h.clock.advance(by: 60)
        #expect(try h.service.sweep().locationAlerts == 1)
        let first = try #require(try pendingAlert(h))
        let before = try h.current(.location)
        let kept = try h.service.decide(promptID: first.id, choice: "keepAlways", actor: h.consent, requestId: "k")
        #expect(kept.authorization == before, "Keep Always changes nothing")
        #expect(kept.prompt.state == .answered && kept.prompt.choice == .keepAlways)
        let keptEntry = try #require(try h.auditLog().last)
        #expect(keptEntry.action == .promptAnswered && keptEntry.detail["choice"] == "keepAlways")
        #expect(keptEntry.from == keptEntry.to && keptEntry.actor == h.consent)

        h.clock.advance(by: 1)
        try used(h)
        h.clock.advance(by: 60)
        #expect(try h.service.sweep().locationAlerts == 1)
        let second = try #require(try pendingAlert(h))
        let narrowed = try h.service.decide(
            promptID: second.id, choice: "changeToWhileUsing", actor: h.consent, requestId: "c")
        #expect(narrowed.authorization.status == .authorized && narrowed.authorization.level == .whenInUse)
        #expect(narrowed.authorization.reason == .userConsent)
        let entry = try #require(try h.auditLog().last)
        #expect(entry.action == .promptAnswered && entry.detail["choice"] == "changeToWhileUsing")
        #expect(entry.to == AuthorizationSnapshot(status: .authorized, level: .whenInUse))
        // No longer eligible: the next use is not kept and no alert comes.
        #expect(try used(h).usageRecorded == false)
        h.clock.advance(by: 600)
        #expect(try h.service.sweep().locationAlerts == 0)
    }

    @Test(arguments: StoreKind.allCases) func aChangeMadeAnotherWayCancelsTheAlert(_ kind: StoreKind) throws {
        let h = try Harness(kind, locationAlerts: LocationAlertSettings(intervals: [60]))
        try always(h)
        try used(h)
        h.clock.advance(by: 60)
        _ = try h.service.sweep()
        let alert = try #require(try pendingAlert(h))
        _ = try h.service.putPolicy(
            id: try PolicyID("mdm"), service: .location, app: h.app, user: nil, effect: .restrict, level: nil,
            actor: .anonymous, requestId: "p")
        #expect(try h.service.prompt(id: alert.id).state == .cancelled, "a restriction cancels it")
        try h.service.deletePolicy(id: try PolicyID("mdm"), actor: .anonymous, requestId: "p")
        h.clock.advance(by: 1)
        try used(h)
        h.clock.advance(by: 60)
        _ = try h.service.sweep()
        let next = try #require(try pendingAlert(h))
        _ = try h.service.revoke(user: h.user, app: h.app, service: .location, actor: h.consent, requestId: "r")
        #expect(try h.service.prompt(id: next.id).state == .cancelled, "a revocation cancels it")
        h.clock.advance(by: 600)
        #expect(try h.service.sweep().locationAlerts == 0)
        #expect(try used(h).usageRecorded == false)
        #expect(try h.service.locationAlertSchedule(user: h.user, app: h.app) == nil, "the schedule went with Always")
    }

    @Test(arguments: StoreKind.allCases) func anAppUpdateStartsTheIntervalsOver(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try always(h)
        try used(h)
        for interval in [3, 7, 14] as [TimeInterval] {
            h.clock.advance(by: interval * Self.day)
            if interval > 3 { try used(h) }
            #expect(try h.service.sweep().locationAlerts == 1)
        }
        h.clock.advance(by: 1)
        try used(h)
        let schedule = try #require(try h.service.locationAlertSchedule(user: h.user, app: h.app))
        let last = try #require(schedule.lastAlertAt)
        #expect(schedule.dueAt == last + 30 * Self.day, "three alerts in: the fourth interval")
        let app = Fixtures.registeredApp()
        _ = try h.service.putApp(
            id: app.id, name: app.name, purposeStrings: app.purposeStrings, version: "2.0", actor: .anonymous,
            requestId: "v")
        #expect(try h.service.app(app.id).version == "2.0")
        #expect(try h.auditLog().last?.detail["version"] == "2.0")
        let restarted = try #require(try h.service.locationAlertSchedule(user: h.user, app: h.app))
        #expect(restarted.alertsShown == 0 && restarted.dueAt == last + 3 * Self.day)
        _ = try h.service.putApp(
            id: app.id, name: app.name, purposeStrings: app.purposeStrings, actor: .anonymous, requestId: "v")
        #expect(try h.service.app(app.id).version == "2.0", "a registration without a version keeps it")
        h.clock.set(last + 3 * Self.day)
        #expect(try h.service.sweep().locationAlerts == 1)
    }

    @Test(arguments: StoreKind.allCases) func badUsesWriteNothing(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try always(h)
        let seq = try h.auditLog().count
        #expect(throws: PermissionError.invalidCombination(field: "usedAt", why: "must not be in the future")) {
            try used(h, at: Self.t0 + 120)
        }
        #expect(throws: PermissionError.invalidCombination(field: "usedAt", why: "must be within the past 3 days")) {
            try used(h, at: Self.t0 - 4 * Self.day)
        }
        #expect(throws: PermissionError.self) {
            try h.service.lifecycle(
                user: h.user, app: h.app, event: .sessionEnded, usedAt: Self.t0, actor: h.consent, requestId: "u")
        }
        #expect(try h.service.locationAlertSchedule(user: h.user, app: h.app) == nil)
        #expect(try h.auditLog().count == seq)
    }

    /// Two stores on the same data (two processes on the SQLite file, two replicas on the
    /// PostgreSQL database) sweep at the same moment, each round: every due alert is issued
    /// exactly once, because the due schedules are read inside the write (one writer on SQLite;
    /// on PostgreSQL after the audit head lock).
    @Test(arguments: StoreKind.allCases) func twoStoresSweepingAtOnceIssueEachAlertOnce(_ kind: StoreKind) throws {
        let h = try Harness(kind, locationAlerts: LocationAlertSettings(intervals: [60]))
        let other = PermissionService(
            store: try h.fixture.openAgain(), clock: h.clock,
            configuration: .init(locationAlerts: LocationAlertSettings(intervals: [60])))
        let users = try (0..<8).map { try UserID("replica-\($0)") }
        for user in users {
            _ = try h.service.setAuthorization(
                user: user, app: h.app, service: .location, status: .authorized, level: .always, actor: h.consent,
                requestId: "s")
        }
        for round in 0..<5 {
            h.clock.advance(by: 1)
            for user in users {
                _ = try h.service.lifecycle(
                    user: user, app: h.app, event: .backgroundLocationUsed, actor: h.consent, requestId: "u")
            }
            h.clock.advance(by: 600)
            let issued = Mutex([Int]())
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let result = try? (index == 0 ? h.service : other).sweep()
                issued.withLock { $0.append(result?.locationAlerts ?? -1) }
            }
            #expect(issued.withLock { $0.reduce(0, +) } == users.count, "round \(round): \(issued.withLock { $0 })")
        }
        let alerts = try h.auditLog().filter { $0.action == .promptCreated && $0.detail["kind"] == "locationAlert" }
        #expect(alerts.count == users.count * 5)
        for user in users { #expect(alerts.filter { $0.user == user }.count == 5) }
    }

    @Test(arguments: StoreKind.allCases) func theExportHoldsTheUsersSchedules(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try always(h)
        try used(h, at: Self.t0 - 7_200)
        try used(h)
        _ = try h.service.setAuthorization(
            user: Fixtures.otherUser, app: h.app, service: .location, status: .authorized, level: .always,
            actor: h.consent, requestId: "s")
        _ = try h.service.lifecycle(
            user: Fixtures.otherUser, app: h.app, event: .backgroundLocationUsed, actor: h.consent, requestId: "u")
        let export = try ExportContents(h.service.export(user: h.user))
        let schedule = try #require(export.locationAlerts.first)
        #expect(export.locationAlerts.count == 1 && schedule.user == h.user && schedule.app == h.app)
        #expect(schedule.usesSinceAlert == 2 && schedule.recentUses.map(\.count) == [1, 1])
        #expect(
            schedule.recentUses.first?.start
                == Date(timeIntervalSince1970: 3_600 * ((Self.t0.timeIntervalSince1970 - 7_200) / 3_600).rounded(.down)))
        #expect(try ExportContents(h.service.export(user: UserID(trusted: "never-seen"))).locationAlerts.isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func erasureRemovesTheSchedule(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try always(h)
        try used(h)
        #expect(try h.service.locationAlertSchedule(user: h.user, app: h.app) != nil)
        _ = try h.service.eraseUser(h.user, actor: .anonymous, requestId: "e")
        #expect(try h.service.locationAlertSchedule(user: h.user, app: h.app) == nil)
        h.clock.advance(by: 30 * Self.day)
        #expect(try h.service.sweep() == SweepResult())
    }
}
