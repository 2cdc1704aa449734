import Foundation
import PermissionDomain
import TestSupport
import Testing

/// Expiring grants (SPEC §11) on both stores, with a manual clock: a decision or a settings
/// change with `until` shows `expiresAt`, reads `notDetermined` (`expired`) from then, and the
/// sweep writes that change once, as actor `system`; bad `until` values write nothing.
@Suite struct ExpiringGrantFlowTests {
    private static let t0 = Fixtures.t0

    @Test(arguments: StoreKind.allCases) func aDecisionWithUntilLapsesAndIsSweptExactlyOnce(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let prompt = try h.prompt(.camera, .full)
        let until = Self.t0.addingTimeInterval(90)
        let decided = try h.service.decide(promptID: prompt.id, choice: "allow", until: until, actor: h.consent, requestId: "d")
        let granted = decided.authorization
        #expect(granted.status == .authorized && granted.level == .full && !granted.once)
        #expect(granted.expiresAt == until && granted.version == 1)
        let answered = try #require(try h.auditLog().last)
        #expect(answered.action == .promptAnswered && answered.detail["until"] == String(until.millisecondsSince1970))

        h.clock.advance(by: 89.999)
        #expect(try h.current(.camera) == granted, "still granted a millisecond before the end")
        #expect(try h.service.sweep() == SweepResult(), "nothing is due yet")
        h.clock.advance(by: 0.001)
        let lapsed = try h.current(.camera)
        #expect(lapsed.status == .notDetermined && lapsed.reason == .expired && lapsed.expiresAt == nil)
        #expect(lapsed.version == 1, "read as lapsed before the sweep writes it")

        let seqBefore = try h.auditLog().count
        #expect(try h.service.sweep() == SweepResult(expiredPrompts: 0, lapsedGrants: 1))
        #expect(try h.service.sweep() == SweepResult(), "written exactly once")
        let swept = try h.current(.camera)
        #expect(swept.status == .notDetermined && swept.reason == .expired && swept.version == 2)
        let log = try h.auditLog()
        #expect(log.count == seqBefore + 1)
        let entry = try #require(log.last)
        #expect(entry.action == .authorizationExpired && entry.actor == .system && entry.reason == .expired)
        #expect(entry.from == AuthorizationSnapshot(status: .authorized, level: .full))
        #expect(entry.to == AuthorizationSnapshot(status: .notDetermined))
        #expect(log.filter { $0.action == .authorizationExpired }.count == 1)
        _ = try h.prompt(.camera, .full)
    }

    @Test(arguments: StoreKind.allCases) func aSettingsChangeWithUntilLapsesAndALaterChangeWithoutItIsPermanent(
        _ kind: StoreKind
    ) throws {
        let h = try Harness(kind)
        let until = Self.t0.addingTimeInterval(3600)
        let set = try h.service.setAuthorization(
            user: h.user, app: h.app, service: .location, status: .authorized, level: .always, until: until,
            actor: h.consent, requestId: "s")
        #expect(set.status == .authorized && set.level == .always && set.expiresAt == until && set.reason == .userSet)
        #expect(try h.auditLog().last?.detail["until"] == String(until.millisecondsSince1970))
        let permanent = try h.service.setAuthorization(
            user: h.user, app: h.app, service: .camera, status: .authorized, level: .full, until: until,
            actor: h.consent, requestId: "s")
        #expect(permanent.expiresAt == until)
        let again = try h.service.setAuthorization(
            user: h.user, app: h.app, service: .camera, status: .authorized, level: .full, actor: h.consent, requestId: "s")
        #expect(again.expiresAt == nil && again.version == 2, "the same status without until ends the expiry")
        #expect(try h.auditLog().last?.detail["until"] == "", "the entry says the end was taken away")

        let outcome = try h.service.lifecycle(user: h.user, app: h.app, event: .sessionEnded, actor: .anonymous, requestId: nil)
        #expect(outcome.changed.isEmpty, "sessionEnded ends Allow Once grants only")

        h.clock.advance(by: 3600)
        #expect(try h.service.sweep().lapsedGrants == 1)
        let location = try h.current(.location)
        #expect(location.status == .notDetermined && location.reason == .expired && location.version == 2)
        #expect(try h.current(.camera).status == .authorized)
        let entry = try #require(try h.auditLog().last)
        #expect(entry.action == .authorizationExpired && entry.actor == .system && entry.service == .location)
    }

    @Test(arguments: StoreKind.allCases) func badUntilIsRefusedAndWritesNothing(_ kind: StoreKind) throws {
        let h = try Harness(kind, maxGrantDuration: 86_400)
        let prompt = try h.prompt(.camera, .full)
        let once = try h.prompt(.location, .whenInUse)
        let before = try h.auditLog()
        let stored = try h.current(.camera)
        func refused(_ why: String, _ body: () throws -> Void) {
            #expect(throws: PermissionError.invalidCombination(field: "until", why: why), performing: body)
        }
        let future = Self.t0.addingTimeInterval(60)
        refused("must be in the future") {
            _ = try h.service.decide(
                promptID: prompt.id, choice: "allow", until: Self.t0.addingTimeInterval(-1), actor: h.consent, requestId: nil)
        }
        refused("must be in the future") {
            _ = try h.service.decide(promptID: prompt.id, choice: "allow", until: Self.t0, actor: h.consent, requestId: nil)
        }
        refused("must be at most 86400 seconds from now (the maximum grant duration)") {
            _ = try h.service.decide(
                promptID: prompt.id, choice: "allow", until: Self.t0.addingTimeInterval(86_400.001), actor: h.consent,
                requestId: nil)
        }
        refused("only a choice that grants access can have an end") {
            _ = try h.service.decide(promptID: prompt.id, choice: "deny", until: future, actor: h.consent, requestId: nil)
        }
        refused("an Allow Once grant ends on its own") {
            _ = try h.service.decide(promptID: once.id, choice: "allowOnce", until: future, actor: h.consent, requestId: nil)
        }
        for status in [AuthorizationStatus.denied, .notDetermined] {
            refused("only an authorized status can have an end") {
                _ = try h.service.setAuthorization(
                    user: h.user, app: h.app, service: .camera, status: status, level: nil, until: future,
                    actor: h.consent, requestId: nil)
            }
        }
        refused("must be in the future") {
            _ = try h.service.setAuthorization(
                user: h.user, app: h.app, service: .camera, status: .authorized, level: .full,
                until: Self.t0.addingTimeInterval(-3600), actor: h.consent, requestId: nil)
        }
        #expect(try h.auditLog() == before, "nothing written")
        #expect(try h.current(.camera) == stored)
        #expect(try h.service.prompt(id: prompt.id).state == .pending)
        let atHorizon = try h.service.decide(
            promptID: prompt.id, choice: "allow", until: Self.t0.addingTimeInterval(86_400), actor: h.consent, requestId: nil)
        #expect(atHorizon.authorization.expiresAt == Self.t0.addingTimeInterval(86_400), "the horizon itself is allowed")
    }
}
