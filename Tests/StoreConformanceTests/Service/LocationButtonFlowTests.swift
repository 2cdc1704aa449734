import Foundation
import PermissionDomain
import TestSupport
import Testing

/// The location button (SPEC §11) on both stores, with a manual clock: its prompt the first
/// time, Allow Once without a prompt once confirmed (audited, lapsing through the sweep), a
/// declined explanation asked again, nothing over a stronger grant or a refusal, and the
/// confirmation forgotten by the app's reinstall and by a reset.
@Suite struct LocationButtonFlowTests {
    private static let t0 = Fixtures.t0

    private func press(_ h: Harness, requestId: String = "b") throws -> LocationButtonOutcome {
        try h.service.pressLocationButton(user: h.user, app: h.app, service: .location, actor: .anonymous, requestId: requestId)
    }

    /// Presses once and answers the button's prompt with `choice`.
    private func confirm(_ h: Harness, _ choice: Choice = .allowOnce) throws -> DecisionOutcome {
        let outcome = try press(h)
        let prompt = try #require(outcome.prompt)
        return try h.service.decide(promptID: prompt.id, choice: choice.rawValue, actor: h.consent, requestId: "d")
    }

    @Test(arguments: StoreKind.allCases) func theFirstPressPromptsAndLaterPressesGrantAllowOnceWithoutOne(
        _ kind: StoreKind
    ) throws {
        let h = try Harness(kind, onceTTL: 60)
        let first = try press(h)
        let prompt = try #require(first.prompt)
        #expect(prompt.kind == .locationButton && prompt.options == [.allowOnce, .deny] && prompt.requestedLevel == .whenInUse)
        #expect(prompt.purposeKey == "NSLocationWhenInUseUsageDescription")
        #expect(first.authorization.status == .notDetermined)
        #expect(try press(h) == first, "pressed again while pending: the same prompt, nothing written")
        #expect(try h.auditLog().filter { $0.action == .promptCreated }.count == 1)

        let decided = try h.service.decide(promptID: prompt.id, choice: "allowOnce", actor: h.consent, requestId: "d")
        #expect(decided.authorization.status == .authorized && decided.authorization.once)
        #expect(decided.authorization.expiresAt == Self.t0.addingTimeInterval(60))
        let answered = try #require(try h.auditLog().last)
        #expect(answered.action == .promptAnswered && answered.detail["locationButton"] == "confirmed")

        h.clock.advance(by: 60)
        #expect(try h.service.sweep().lapsedGrants == 1, "the button's grant lapses like any Allow Once grant")
        #expect(try h.current(.location).status == .notDetermined)

        h.clock.advance(by: 5)
        let promptsBefore = try h.auditLog().filter { $0.action == .promptCreated }.count
        guard case .granted(let granted) = try press(h, requestId: "again") else {
            Issue.record("a confirmed button grants without a prompt")
            return
        }
        #expect(granted.status == .authorized && granted.level == .whenInUse && granted.once)
        #expect(granted.reason == .userConsent && granted.expiresAt == Self.t0.addingTimeInterval(125))
        #expect(try h.auditLog().filter { $0.action == .promptCreated }.count == promptsBefore, "no prompt")
        let entry = try #require(try h.auditLog().last)
        #expect(entry.action == .locationButtonGranted && entry.requestId == "again" && entry.service == .location)
        #expect(entry.from == AuthorizationSnapshot(status: .notDetermined))
        #expect(entry.to == AuthorizationSnapshot(status: .authorized, level: .whenInUse, once: true))

        h.clock.advance(by: 30)
        guard case .granted(let renewed) = try press(h) else {
            Issue.record("a press while Allow Once is in force renews it")
            return
        }
        #expect(renewed.expiresAt == Self.t0.addingTimeInterval(155) && renewed.version == granted.version + 1)
        let ended = try h.service.lifecycle(user: h.user, app: h.app, event: .sessionEnded, actor: .anonymous, requestId: nil)
        #expect(ended.changed.map(\.status) == [.notDetermined], "sessionEnded ends it like any Allow Once grant")
        guard case .granted = try press(h) else {
            Issue.record("the confirmation outlives the grant")
            return
        }
    }

    @Test(arguments: StoreKind.allCases) func denyOnTheButtonPromptChangesNothingAndTheNextPressAsksAgain(
        _ kind: StoreKind
    ) throws {
        let h = try Harness(kind)
        let denied = try confirm(h, .deny)
        #expect(denied.authorization.status == .notDetermined && denied.authorization.version == 0)
        #expect(denied.prompt.state == .answered && denied.prompt.choice == .deny)
        let again = try press(h)
        let prompt = try #require(again.prompt, "iOS explains the button again until it is confirmed")
        #expect(prompt.id != denied.prompt.id)
        let request = try h.service.request(
            user: h.user, app: h.app, service: .location, level: .whenInUse, actor: .anonymous, requestId: "r")
        #expect(request.prompt == prompt, "a request finds the button's prompt pending and returns it")
    }

    @Test(arguments: StoreKind.allCases) func aStrongerGrantOrARefusalStandsAndWritesNothing(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        _ = try confirm(h)
        _ = try h.service.setAuthorization(
            user: h.user, app: h.app, service: .location, status: .authorized, level: .whenInUse, actor: h.consent,
            requestId: "s")
        var log = try h.auditLog()
        #expect(try press(h) == .unchanged(.alreadyAuthorized, try h.current(.location)))
        #expect(try h.auditLog() == log, "an unchanged press writes nothing")
        _ = try h.service.revoke(user: h.user, app: h.app, service: .location, actor: h.consent, requestId: "v")
        log = try h.auditLog()
        #expect(try press(h) == .unchanged(.denied, try h.current(.location)))
        #expect(try h.auditLog() == log)
        _ = try h.service.setLocationServices(user: h.user, enabled: false, actor: h.consent, requestId: "o")
        log = try h.auditLog()
        #expect(try press(h) == .unchanged(.servicesDisabled, try h.current(.location)))
        #expect(try h.auditLog() == log)
    }

    @Test(arguments: StoreKind.allCases) func aPressSupersedesAPendingRequestPromptAndAGrantCancelsIt(
        _ kind: StoreKind
    ) throws {
        let h = try Harness(kind)
        let request = try h.prompt(.location, .always)
        let button = try #require(try press(h).prompt)
        #expect(button.kind == .locationButton)
        #expect(try h.service.prompt(id: request.id).state == .cancelled)
        _ = try h.service.decide(promptID: button.id, choice: "allowOnce", actor: h.consent, requestId: "d")
        h.clock.advance(by: 3600)
        let again = try h.prompt(.location, .whenInUse)
        guard case .granted = try press(h) else {
            Issue.record("a confirmed button grants")
            return
        }
        #expect(try h.service.prompt(id: again.id).state == .cancelled, "the grant changed the authorization another way")
    }

    @Test(arguments: StoreKind.allCases) func reinstallAndResetForgetTheConfirmation(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        _ = try confirm(h)
        _ = try h.service.lifecycle(user: h.user, app: h.app, event: .reinstalled, actor: .anonymous, requestId: nil)
        #expect(try press(h).prompt?.kind == .locationButton, "a reinstalled app's button asks again")
        let prompt = try #require(try press(h).prompt)
        _ = try h.service.decide(promptID: prompt.id, choice: "allowOnce", actor: h.consent, requestId: "d")
        _ = try h.service.lifecycle(user: h.user, app: h.app, event: .sessionEnded, actor: .anonymous, requestId: nil)
        #expect(try h.current(.location).status == .notDetermined)
        let changed = try h.service.reset(scope: .service(.location), app: h.app, user: nil, actor: .anonymous, requestId: "x")
        #expect(changed == 1, "a confirmation alone is something to reset")
        let entry = try #require(try h.auditLog().last)
        #expect(entry.action == .authorizationReset && entry.service == .location)
        #expect(try press(h).prompt?.kind == .locationButton)
    }

    @Test(arguments: StoreKind.allCases) func theButtonOfAnotherServiceIsNotFoundAndAMissingPurposeWritesNothing(
        _ kind: StoreKind
    ) throws {
        let h = try Harness(kind, registered: Fixtures.registeredApp(without: ["NSLocationWhenInUseUsageDescription"]))
        let log = try h.auditLog()
        #expect(throws: PermissionError.notFound(what: "location button for service camera")) {
            try h.service.pressLocationButton(user: h.user, app: h.app, service: .camera, actor: .anonymous, requestId: nil)
        }
        #expect(throws: PermissionError.missingPurposeString(key: "NSLocationWhenInUseUsageDescription")) {
            try press(h)
        }
        #expect(try h.auditLog() == log)
    }
}
