import Foundation
import PermissionDomain
import Synchronization
import TestSupport
import Testing

/// The consent session flows (SPEC §10) on both stores, with a manual clock: creation audited
/// without the token, the one-time exchange, expiry from creation, ending, and the typed
/// refusals, each changing nothing.
@Suite struct ConsentSessionFlowTests {
    static func bytes(_ seed: UInt8) -> [UInt8] { (0..<32).map { seed &+ UInt8($0) } }
    let admin = Actor(keyId: "k-admin", role: "admin")

    func make(_ h: Harness, id: String = "cs_00000000000000a1", token: UInt8 = 1) throws -> ConsentSession {
        try h.service.createConsentSession(
            id: ConsentSessionID(id), user: h.user, tokenHash: Self.bytes(token), actor: admin, requestId: "req-c")
    }

    @Test(arguments: StoreKind.allCases) func createIsAuditedWithTheUserAndNeverTheToken(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let session = try make(h)
        #expect(session.user == h.user && session.createdAt == Fixtures.t0)
        #expect(session.expiresAt == Fixtures.t0.addingTimeInterval(900), "the default TTL, from creation")
        #expect(session.exchangedAt == nil && session.secretHash == nil && session.endedAt == nil)
        let entry = try #require(try h.auditLog().last)
        #expect(entry.action == .consentSessionCreated && entry.user == h.user && entry.actor == admin)
        #expect(entry.detail["session"] == "cs_00000000000000a1" && entry.requestId == "req-c")
        #expect(entry.app == nil && entry.service == nil)
        #expect(!entry.detail.values.contains { $0.contains("0102") }, "no hash or token in the entry")
        #expect(throws: PermissionError.conflict(why: "consent session cs_00000000000000a1 exists")) {
            try make(h, token: 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func aTokenIsExchangedOnce(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        _ = try make(h)
        h.clock.advance(by: 10)
        let seq = try h.service.lastAuditSeq()
        let session = try h.service.exchangeConsentToken(
            tokenHash: Self.bytes(1), secretHash: Self.bytes(50), csrfHash: Self.bytes(60))
        #expect(session.exchangedAt == Fixtures.t0.addingTimeInterval(10))
        #expect(try h.service.liveConsentSession(secretHash: Self.bytes(50)) == session)
        #expect(try h.service.lastAuditSeq() == seq, "the exchange changes the session row only")
        #expect(throws: ConsentSessionError.alreadyUsed) {
            try h.service.exchangeConsentToken(tokenHash: Self.bytes(1), secretHash: Self.bytes(51), csrfHash: Self.bytes(61))
        }
        #expect(try h.service.liveConsentSession(secretHash: Self.bytes(51)) == nil, "the second visit got nothing")
        #expect(try h.service.liveConsentSession(secretHash: Self.bytes(50)) == session, "the first one still works")
        #expect(throws: ConsentSessionError.unknownToken) {
            try h.service.exchangeConsentToken(tokenHash: Self.bytes(2), secretHash: Self.bytes(52), csrfHash: Self.bytes(62))
        }
    }

    @Test(arguments: StoreKind.allCases) func concurrentVisitsOfOneLinkOpenOneSession(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        _ = try make(h)
        let results = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let ok =
                (try? h.service.exchangeConsentToken(
                    tokenHash: Self.bytes(1), secretHash: Self.bytes(UInt8(100 + index)),
                    csrfHash: Self.bytes(UInt8(200 &+ index)))) != nil
            results.withLock { $0.append(ok) }
        }
        #expect(results.withLock { $0.filter { $0 }.count } == 1)
    }

    @Test(arguments: StoreKind.allCases) func sessionsExpireFromCreation(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        _ = try make(h, id: "cs_00000000000000a1", token: 1)
        _ = try make(h, id: "cs_00000000000000a2", token: 2)
        h.clock.advance(by: 899.999)
        let session = try h.service.exchangeConsentToken(
            tokenHash: Self.bytes(1), secretHash: Self.bytes(50), csrfHash: Self.bytes(60))
        #expect(try h.service.liveConsentSession(secretHash: Self.bytes(50)) == session)
        h.clock.advance(by: 0.001)
        #expect(try h.service.liveConsentSession(secretHash: Self.bytes(50)) == nil, "expired at expiresAt")
        #expect(throws: ConsentSessionError.expired) {
            try h.service.exchangeConsentToken(tokenHash: Self.bytes(2), secretHash: Self.bytes(51), csrfHash: Self.bytes(61))
        }
        #expect(try h.service.consentSession(id: ConsentSessionID("cs_00000000000000a2"))?.exchangedAt == nil)
    }

    @Test(arguments: StoreKind.allCases) func endingStopsTheSessionAndIsAuditedOnce(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let made = try make(h)
        _ = try make(h, id: "cs_00000000000000a2", token: 2)
        _ = try h.service.exchangeConsentToken(tokenHash: Self.bytes(1), secretHash: Self.bytes(50), csrfHash: Self.bytes(60))
        h.clock.advance(by: 30)
        let ended = try h.service.endConsentSession(id: made.id, actor: made.actor, requestId: "req-e")
        #expect(ended.endedAt == Fixtures.t0.addingTimeInterval(30))
        #expect(try h.service.liveConsentSession(secretHash: Self.bytes(50)) == nil)
        let entry = try #require(try h.auditLog().last)
        #expect(entry.action == .consentSessionEnded && entry.user == h.user && entry.detail == ["session": made.id.rawValue])
        #expect(entry.actor == Actor(keyId: made.id.rawValue, role: "user"))
        let seq = try h.service.lastAuditSeq()
        #expect(try h.service.endConsentSession(id: made.id, actor: admin, requestId: nil) == ended)
        #expect(try h.service.lastAuditSeq() == seq, "ending an ended session changes nothing")

        // A link whose session was ended before it was opened.
        try h.service.endConsentSession(id: ConsentSessionID("cs_00000000000000a2"), actor: admin, requestId: nil)
        #expect(throws: ConsentSessionError.ended) {
            try h.service.exchangeConsentToken(tokenHash: Self.bytes(2), secretHash: Self.bytes(51), csrfHash: Self.bytes(61))
        }
        #expect(throws: PermissionError.notFound(what: "consent session cs_00000000000000ff")) {
            try h.service.endConsentSession(id: ConsentSessionID("cs_00000000000000ff"), actor: admin, requestId: nil)
        }
    }

    /// "Stay Signed In": a live session's end moves to a TTL from now, audited with the new end
    /// by the session itself; it outlives its first end; at most twelve TTLs after creation
    /// (then nothing changes and nothing is audited); an ended, expired or unopened session
    /// is refused with nothing changed.
    @Test(arguments: StoreKind.allCases) func aLiveSessionsEndMovesLaterUpToItsLimit(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let made = try make(h)
        _ = try make(h, id: "cs_00000000000000a2", token: 2)
        #expect(throws: ConsentSessionError.unknownToken, "an unopened link is no session to extend") {
            try h.service.extendConsentSession(id: ConsentSessionID("cs_00000000000000a2"), actor: admin, requestId: nil)
        }
        _ = try h.service.exchangeConsentToken(tokenHash: Self.bytes(1), secretHash: Self.bytes(50), csrfHash: Self.bytes(60))
        h.clock.advance(by: 600)
        let seq = try h.service.lastAuditSeq()
        let (session, outcome) = try h.service.extendConsentSession(id: made.id, actor: made.actor, requestId: "req-x")
        #expect(outcome == .to(Fixtures.t0.addingTimeInterval(1500)) && session.expiresAt == Fixtures.t0.addingTimeInterval(1500))
        #expect(session.createdAt == made.createdAt && session.exchangedAt != nil && session.endedAt == nil)
        #expect(try h.service.consentSession(id: made.id) == session, "stored")
        let entry = try #require(try h.auditLog().last)
        #expect(entry.seq == seq + 1 && entry.action == .consentSessionExtended && entry.user == h.user)
        #expect(entry.actor == made.actor && entry.requestId == "req-x")
        #expect(entry.detail == ["session": made.id.rawValue, "expiresAt": String(session.expiresAt.millisecondsSince1970)])
        // Asked again at once: the end would move by less than a quarter TTL; nothing written.
        h.clock.advance(by: 224)
        let again = try h.service.extendConsentSession(id: made.id, actor: made.actor, requestId: nil)
        #expect(again.outcome == .notYet && again.session == session)
        #expect(try h.service.lastAuditSeq() == seq + 1, "not audited")
        h.clock.advance(by: 176)  // past the first end
        #expect(try h.service.liveConsentSession(secretHash: Self.bytes(50)) == session, "it outlives its first end")

        // Up to twelve TTLs after creation: 10,800 s; extended each time near its end.
        var end = session.expiresAt
        var extensions = 1
        while true {
            h.clock.set(end.addingTimeInterval(-60))
            let (next, outcome) = try h.service.extendConsentSession(id: made.id, actor: made.actor, requestId: nil)
            guard case .to = outcome else {
                #expect(outcome == .atLimit && next.expiresAt == end, "nothing changed at the limit")
                break
            }
            #expect(next.expiresAt > end)
            end = next.expiresAt
            extensions += 1
            #expect(extensions < 20, "the limit ends the loop")
            if extensions >= 20 { return }
        }
        #expect(extensions >= 10, "at least ten extensions (WCAG 2.2.1): \(extensions)")
        #expect(end == Fixtures.t0.addingTimeInterval(900 * 12), "the limit: twelve TTLs after creation")
        let atLimit = try h.service.lastAuditSeq()
        _ = try h.service.extendConsentSession(id: made.id, actor: made.actor, requestId: nil)
        #expect(try h.service.lastAuditSeq() == atLimit, "a refused extension is not audited")

        h.clock.set(end)
        #expect(throws: ConsentSessionError.expired) {
            try h.service.extendConsentSession(id: made.id, actor: made.actor, requestId: nil)
        }
        h.clock.set(end.addingTimeInterval(-1))
        try h.service.endConsentSession(id: made.id, actor: admin, requestId: nil)
        #expect(throws: ConsentSessionError.ended) {
            try h.service.extendConsentSession(id: made.id, actor: made.actor, requestId: nil)
        }
        #expect(throws: PermissionError.notFound(what: "consent session cs_00000000000000ff")) {
            try h.service.extendConsentSession(id: ConsentSessionID("cs_00000000000000ff"), actor: admin, requestId: nil)
        }
        #expect(try h.service.consentSession(id: made.id)?.expiresAt == end, "the refusals changed nothing")
    }
}
