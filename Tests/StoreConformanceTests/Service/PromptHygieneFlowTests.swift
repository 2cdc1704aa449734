import Foundation
import PermissionDomain
import TestSupport
import Testing

/// Prompt hygiene (SPEC §11): an app has at most `maxPendingPrompts` prompts pending for one
/// user; one more is refused naming them, with nothing written, on both stores and under
/// concurrent requests from two stores on the same data.
@Suite struct PromptHygieneFlowTests {
    @Test(arguments: StoreKind.allCases) func oneMorePromptThanTheLimitIsRefusedNamingThePendingOnes(
        _ kind: StoreKind
    ) throws {
        let ids = SameResultsOnBothStoresTests.CountingPromptIDs()
        let h = try Harness(kind, makePromptID: { ids.make($0) })
        let pending = [try h.prompt(.camera, .full), try h.prompt(.microphone, .full), try h.prompt(.contacts, .full)]
        let log = try h.auditLog()
        // Room again when the first expires: the default prompt TTL, 600 s, from now.
        let refused = PermissionError.tooManyPrompts(limit: 3, pending: pending, retryAfter: 600)
        #expect(throws: refused) { try h.prompt(.photos, .full) }
        #expect(throws: refused) {
            try h.service.pressLocationButton(user: h.user, app: h.app, service: .location, actor: .anonymous, requestId: nil)
        }
        #expect(try h.auditLog() == log, "nothing written: no prompt, no audit entry")
        let stillPending = try h.service.prompts(matching: PromptFilter(user: h.user, state: .pending), after: nil, limit: 100)
        #expect(stillPending.items.map(\.id) == pending.map(\.id))

        #expect(try h.prompt(.microphone, .full) == pending[1], "the pending prompt is returned, not refused")
        #expect(try h.prompt(.photos, .full, user: Fixtures.otherUser).service == .photos, "another user has room")
        let decided = try h.service.decide(promptID: pending[0].id, choice: "deny", actor: h.consent, requestId: "d")
        #expect(decided.prompt.state == .answered)
        #expect(try h.prompt(.photos, .full).service == .photos, "an answer makes room")
    }

    @Test(arguments: StoreKind.allCases) func promptsPastTheirDeadlineDoNotCountAndALimitOfOneWorks(
        _ kind: StoreKind
    ) throws {
        let ids = SameResultsOnBothStoresTests.CountingPromptIDs()
        let h = try Harness(kind, promptTTL: 60, maxPendingPrompts: 1, makePromptID: { ids.make($0) })
        let camera = try h.prompt(.camera, .full)
        h.clock.advance(by: 20.5)
        #expect(throws: PermissionError.tooManyPrompts(limit: 1, pending: [camera], retryAfter: 40)) {
            try h.prompt(.photos, .full)
        }
        h.clock.advance(by: 39.5)
        #expect(try h.prompt(.photos, .full).service == .photos, "an expired prompt is no longer pending, swept or not")
        #expect(try h.prompt(.camera, .full, user: Fixtures.otherUser).service == .camera)
        h.clock.advance(by: 60)
        let location = try h.prompt(.location, .whenInUse)
        let button = try h.service.pressLocationButton(
            user: h.user, app: h.app, service: .location, actor: .anonymous, requestId: nil)
        #expect(button.prompt?.kind == .locationButton, "the prompt a press supersedes leaves room for the button's")
        #expect(try h.service.prompt(id: location.id).state == .cancelled)
    }

    /// Two stores on the same data (two processes on the SQLite file, two replicas on the
    /// PostgreSQL database) each ask for a different service at the same moment, with one place
    /// left: exactly one gets it, every round, because the count is read inside the write (one
    /// writer on SQLite; on PostgreSQL after the audit head lock, in READ COMMITTED).
    @Test(arguments: StoreKind.allCases) func concurrentRequestsFromTwoStoresNeverPassTheLimit(_ kind: StoreKind) throws {
        let h = try Harness(kind, maxPendingPrompts: 2)
        let other = PermissionService(
            store: try h.fixture.openAgain(), clock: h.clock, configuration: .init(maxPendingPrompts: 2))
        let services: [ServiceID] = [.camera, .microphone, .contacts, .photos, .calendars, .reminders, .motion, .bluetooth]
        for round in 0..<12 {
            let user = try UserID("race-\(round)")
            _ = try h.prompt(.speechRecognition, .full, user: user)
            let pair = [services[(2 * round) % services.count], services[(2 * round + 1) % services.count]]
            let outcomes = OutcomeBox()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let service = index == 0 ? h.service : other
                let definition = Catalogue.builtin(pair[index])!
                do {
                    let outcome = try service.request(
                        user: user, app: h.app, service: pair[index], level: definition.strongestLevel, actor: .anonymous,
                        requestId: "race")
                    outcomes.add(outcome.prompt == nil ? "no prompt" : "prompt")
                } catch PermissionError.tooManyPrompts(let limit, let pending, _) {
                    outcomes.add("refused \(limit) \(pending.count)")
                } catch {
                    outcomes.add("error \(error)")
                }
            }
            #expect(outcomes.sorted == ["prompt", "refused 2 2"], "round \(round)")
            let pending = try h.service.prompts(matching: PromptFilter(user: user, state: .pending), after: nil, limit: 100)
            #expect(pending.items.count == 2, "round \(round)")
        }
    }
}

/// Results gathered from concurrent threads.
private final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []

    func add(_ value: String) { lock.withLock { values.append(value) } }
    var sorted: [String] { lock.withLock { values.sorted() } }
}
