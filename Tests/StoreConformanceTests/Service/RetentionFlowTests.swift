import Foundation
import PermissionDomain
import TestSupport
import Testing

/// Retention (`--ended-retention`) on both stores, with a manual clock: an ended prompt and a
/// consent session past its life are deleted once the retention has passed since they ended,
/// oldest first and a batch at a time; a pending prompt never is, whatever its deadline; the
/// audit log is untouched; a retention of 0 keeps everything.
@Suite struct RetentionFlowTests {
    static let day: TimeInterval = 86_400
    let admin = Actor(keyId: "k-admin", role: "admin")

    func session(_ h: Harness, _ number: Int) throws -> ConsentSession {
        try h.service.createConsentSession(
            id: ConsentSessionID(String(format: "cs_%016x", number)), user: h.user,
            tokenHash: (0..<32).map { UInt8(truncatingIfNeeded: number &+ $0) }, actor: admin, requestId: nil)
    }

    func stored(_ h: Harness, _ prompt: Prompt) throws -> Prompt? {
        try h.fixture.store.read { try $0.prompt(id: prompt.id) }
    }

    func stored(_ h: Harness, _ session: ConsentSession) throws -> ConsentSession? {
        try h.fixture.store.read { try $0.consentSession(id: session.id) }
    }

    @Test(arguments: StoreKind.allCases) func whatEndedGoesOnceTheRetentionHasPassed(_ kind: StoreKind) throws {
        let h = try Harness(kind, promptTTL: 60)
        let answered = try h.prompt(.camera, .full)  // answered at t0
        _ = try h.service.decide(promptID: answered.id, choice: "deny", actor: h.consent, requestId: "d")
        let expired = try h.prompt(.microphone, .full)
        h.clock.advance(by: 61)
        #expect(try h.service.sweep().expiredPrompts == 1)  // ended now, at t0 + 61
        let link = try session(h, 1)  // its life ends at t0 + 61 + 900
        h.clock.advance(by: 30 * Self.day - 100)
        let pending = try h.prompt(.contacts, .full)  // past its deadline below, never swept
        let log = try h.auditLog()

        #expect(try h.service.purgeEnded() == PermissionService.Purge(), "nothing ended 30 days ago yet")
        h.clock.advance(by: 101)  // t0 + 30 days + 62 s
        let first = try h.service.purgeEnded()
        #expect(first == PermissionService.Purge(prompts: 2), "\(first)")
        #expect(try stored(h, answered) == nil && stored(h, expired) == nil)
        #expect(try stored(h, pending)?.state == .pending, "a pending prompt stays, however late")
        #expect(try stored(h, link) != nil, "the session's life ended 900 s later")
        h.clock.advance(by: 901)
        let second = try h.service.purgeEnded()
        #expect(second == PermissionService.Purge(consentSessions: 1), "\(second)")
        #expect(try stored(h, link) == nil)
        #expect(try h.service.purgeEnded() == PermissionService.Purge())
        #expect(try h.auditLog() == log, "the log keeps what happened; a purge writes nothing to it")
        #expect(try h.service.lastAuditSeq() == log.last?.seq)
    }

    @Test(arguments: StoreKind.allCases) func aPurgeTakesTheOldestFirstABatchAtATime(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        var sessions: [ConsentSession] = []
        for number in 1...3 {
            sessions.append(try session(h, number))
            h.clock.advance(by: 10)
        }
        h.clock.advance(by: 31 * Self.day)
        #expect(try h.service.purgeEnded(limit: 2) == PermissionService.Purge(consentSessions: 2))
        #expect(try stored(h, sessions[0]) == nil && stored(h, sessions[1]) == nil && stored(h, sessions[2]) != nil)
        #expect(try h.service.purgeEnded(limit: 2) == PermissionService.Purge(consentSessions: 1))
    }

    @Test(arguments: StoreKind.allCases) func aRetentionOfZeroKeepsEverything(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        var configuration = h.service.configuration
        configuration.endedRetention = 0
        let keeping = PermissionService(store: h.fixture.store, clock: h.clock, configuration: configuration)
        let answered = try h.prompt(.camera, .full)
        _ = try h.service.decide(promptID: answered.id, choice: "deny", actor: h.consent, requestId: "d")
        let link = try session(h, 1)
        h.clock.advance(by: 3_650 * Self.day)
        #expect(try keeping.purgeEnded() == PermissionService.Purge())
        #expect(try stored(h, answered) != nil && stored(h, link) != nil)
    }
}
