import Foundation
import PermissionDomain
import TestSupport
import Testing

/// PermissionService flows (SPEC §4-§5) on both stores, with a manual clock.
@Suite struct ServiceFlowTests {
    @Test(arguments: StoreKind.allCases) func requestPromptDecideAndAudit(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let prompt = try h.prompt(.camera, .full)
        #expect(prompt.state == .pending && prompt.options == [.allow, .deny])
        #expect(prompt.expiresAt == Fixtures.t0.addingTimeInterval(600))
        let again = try h.service.request(
            user: h.user, app: h.app, service: .camera, level: .full, actor: .anonymous, requestId: nil)
        #expect(again.prompt == prompt, "the same request returns the same prompt")
        #expect(
            try h.service.prompts(matching: PromptFilter(user: h.user, state: .pending), after: nil, limit: 10).items == [prompt])

        h.clock.advance(by: 5)
        let decision = try h.service.decide(promptID: prompt.id, choice: "allow", actor: h.consent, requestId: "req-9")
        #expect(decision.prompt.state == .answered && decision.prompt.choice == .allow)
        #expect(decision.prompt.endedAt == Fixtures.t0.addingTimeInterval(5))
        let authorization = try h.current(.camera)
        #expect(authorization == decision.authorization)
        #expect(authorization.status == .authorized && authorization.level == .full && authorization.version == 1)
        #expect(authorization.reason == .userConsent && authorization.purpose == prompt.purpose)

        let log = try h.auditLog()
        #expect(log.map(\.seq) == [1, 2, 3])
        #expect(log.map(\.action) == [.appPut, .promptCreated, .promptAnswered])
        let answered = log[2]
        #expect(answered.from == AuthorizationSnapshot(status: .notDetermined))
        #expect(answered.to == AuthorizationSnapshot(status: .authorized, level: .full))
        #expect(answered.actor == h.consent && answered.requestId == "req-9" && answered.promptId == prompt.id)

        let after = try h.service.request(
            user: h.user, app: h.app, service: .camera, level: .full, actor: .anonymous, requestId: nil)
        #expect(after == .decided(authorization), "the system remembers and does not prompt again")
        #expect(throws: PermissionError.promptNotPending(.answered)) {
            try h.service.decide(promptID: prompt.id, choice: "deny", actor: h.consent, requestId: nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func missingPurposeStringChangesNothing(_ kind: StoreKind) throws {
        let h = try Harness(kind, registered: Fixtures.registeredApp(without: ["NSLocationAlwaysAndWhenInUseUsageDescription"]))
        let seq = try h.service.lastAuditSeq()
        #expect(throws: PermissionError.missingPurposeString(key: "NSLocationAlwaysAndWhenInUseUsageDescription")) {
            try h.service.request(user: h.user, app: h.app, service: .location, level: .always, actor: .anonymous, requestId: nil)
        }
        let stranger = try AppID("com.unknown.app")
        #expect(throws: PermissionError.missingPurposeString(key: "NSCameraUsageDescription")) {
            try h.service.request(user: h.user, app: stranger, service: .camera, level: .full, actor: .anonymous, requestId: nil)
        }
        #expect(try h.service.lastAuditSeq() == seq)
        #expect(try h.auditLog().count == 1)
    }

    @Test(arguments: StoreKind.allCases) func invalidChoiceAndUnknownPrompt(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let prompt = try h.prompt(.camera, .full)
        #expect(throws: PermissionError.invalidChoice(choice: "allowOnce", allowed: [.allow, .deny])) {
            try h.service.decide(promptID: prompt.id, choice: "allowOnce", actor: h.consent, requestId: nil)
        }
        #expect(throws: PermissionError.invalidChoice(choice: "yes please", allowed: [.allow, .deny])) {
            try h.service.decide(promptID: prompt.id, choice: "yes please", actor: h.consent, requestId: nil)
        }
        #expect(throws: PermissionError.notFound(what: "prompt nope")) {
            try h.service.decide(promptID: try PromptID("nope"), choice: "allow", actor: h.consent, requestId: nil)
        }
        #expect(throws: PermissionError.unknownService(try ServiceID("teleport"))) {
            try h.service.authorization(user: h.user, app: h.app, service: try ServiceID("teleport"))
        }
    }

    @Test(arguments: StoreKind.allCases) func promptExpiresAtItsDeadlineAndTheSweepWritesIt(_ kind: StoreKind) throws {
        let h = try Harness(kind, promptTTL: 60)
        let prompt = try h.prompt(.microphone, .full)
        h.clock.advance(by: 60)
        #expect(try h.service.prompt(id: prompt.id).state == .expired, "reads show the lapsed state from the deadline on")
        #expect(try h.service.prompts(matching: PromptFilter(user: h.user, state: .pending), after: nil, limit: 10).items.isEmpty)
        #expect(
            try h.service.prompts(matching: PromptFilter(user: h.user, state: .expired), after: nil, limit: 10).items.map(\.id)
                == [prompt.id])
        #expect(throws: PermissionError.promptNotPending(.expired)) {
            try h.service.decide(promptID: prompt.id, choice: "allow", actor: h.consent, requestId: nil)
        }
        #expect(try h.service.sweep() == SweepResult(expiredPrompts: 1, lapsedGrants: 0))
        #expect(try h.service.sweep() == SweepResult(), "idle sweeps change nothing")
        let entry = try #require(try h.auditLog().last)
        #expect(entry.action == .promptExpired && entry.actor == .system && entry.promptId == prompt.id)
        #expect(try h.current(.microphone).status == .notDetermined, "the status stays notDetermined")
        let next = try h.prompt(.microphone, .full)
        #expect(next.id != prompt.id)
    }

    @Test(arguments: StoreKind.allCases) func allowOnceLapsesAfterTheOnceTTL(_ kind: StoreKind) throws {
        let h = try Harness(kind, onceTTL: 3600)
        let granted = try h.grant(.location, .whenInUse, .allowOnce)
        #expect(granted.once && granted.expiresAt == Fixtures.t0.addingTimeInterval(3600) && granted.version == 1)
        h.clock.advance(by: 3600)
        let lapsed = try h.current(.location)
        #expect(lapsed.status == .notDetermined && lapsed.reason == .expired && lapsed.version == 1)
        #expect(lapsed.etag != granted.etag)
        #expect(try h.service.sweep().lapsedGrants == 1)
        let swept = try h.current(.location)
        #expect(swept.status == .notDetermined && swept.reason == .expired && swept.version == 2)
        let entry = try #require(try h.auditLog().last)
        #expect(entry.action == .authorizationExpired && entry.actor == .system)
        #expect(entry.from == AuthorizationSnapshot(status: .authorized, level: .whenInUse, once: true))
        _ = try h.prompt(.location, .whenInUse)
    }

    @Test(arguments: StoreKind.allCases) func sessionEndedEndsOnceGrantsOnly(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try h.grant(.location, .whenInUse, .allowOnce)
        try h.grant(.camera, .full, .allow)
        let outcome = try h.service.lifecycle(user: h.user, app: h.app, event: .sessionEnded, actor: .anonymous, requestId: nil)
        #expect(outcome.changed.map(\.service) == [.location] && outcome.prompt == nil)
        #expect(try h.current(.location).reason == .expired)
        #expect(try h.current(.camera).status == .authorized)
    }

    @Test(arguments: StoreKind.allCases) func provisionalAlwaysAndTheUpgradePrompt(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let provisional = try h.grant(.location, .always, .allowWhileUsing)
        #expect(provisional.status == .authorized && provisional.level == .always && provisional.provisional)
        #expect(
            try h.service.request(user: h.user, app: h.app, service: .location, level: .always, actor: .anonymous, requestId: nil)
                .prompt == nil)

        let upgrade = try #require(
            try h.service.lifecycle(user: h.user, app: h.app, event: .backgroundLocationUsed, actor: h.consent, requestId: nil)
                .prompt)
        #expect(upgrade.kind == .upgrade && upgrade.options == [.keepWhileUsing, .changeToAlways])
        #expect(upgrade.purposeKey == "NSLocationAlwaysAndWhenInUseUsageDescription")
        let same = try h.service.lifecycle(
            user: h.user, app: h.app, event: .backgroundLocationUsed, actor: h.consent, requestId: nil)
        #expect(same.prompt == upgrade)

        let kept = try h.service.decide(promptID: upgrade.id, choice: "keepWhileUsing", actor: h.consent, requestId: nil)
        #expect(kept.authorization.level == .whenInUse && !kept.authorization.provisional)
        #expect(kept.authorization.purpose == upgrade.purpose)
        let never = try h.service.lifecycle(
            user: h.user, app: h.app, event: .backgroundLocationUsed, actor: h.consent, requestId: nil)
        #expect(never.prompt == nil, "never prompted again")
        #expect(
            try h.service.request(user: h.user, app: h.app, service: .location, level: .always, actor: .anonymous, requestId: nil)
                .prompt == nil)
    }

    @Test(arguments: StoreKind.allCases) func changeToAlwaysEndsTheFlow(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try h.grant(.location, .always, .allowWhileUsing)
        let upgrade = try #require(
            try h.service.lifecycle(user: h.user, app: h.app, event: .backgroundLocationUsed, actor: h.consent, requestId: nil)
                .prompt)
        let always = try h.service.decide(promptID: upgrade.id, choice: "changeToAlways", actor: h.consent, requestId: nil)
            .authorization
        #expect(always.level == .always && !always.provisional && always.version == 2)
    }

    @Test(arguments: StoreKind.allCases) func upgradeDenyKeepsTheGrantAndIsNotPromptedAgain(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try h.grant(.calendars, .writeOnly, .allow)
        let prompt = try h.prompt(.calendars, .full)
        let kept = try h.service.decide(promptID: prompt.id, choice: "deny", actor: h.consent, requestId: nil).authorization
        #expect(kept.status == .authorized && kept.level == .writeOnly)
        let again = try h.service.request(
            user: h.user, app: h.app, service: .calendars, level: .full, actor: .anonymous, requestId: nil)
        #expect(again == .decided(kept))
    }
}
