import Foundation
import PermissionDomain
import TestSupport
import Testing

/// The audit log on both stores: entries round-trip, `append` numbers them gap-free from 1
/// whatever their own seq, and queries filter and page.
@Suite struct AuditLogTests {
    @Test(arguments: StoreKind.allCases) func entriesRoundTripWithDetail(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        var entry = AuditEntry(
            at: epoch, actor: Actor(keyId: "key-1", role: "admin"), action: .policyPut, user: try user("u1"),
            app: try app("com.a.b"), service: .camera, from: AuthorizationSnapshot(status: .notDetermined),
            to: AuthorizationSnapshot(status: .authorized, level: .full, provisional: true, once: true),
            reason: .policy, purpose: try purpose("Why \"we\" ask"), promptId: try PromptID("0001"), requestId: "r-1",
            detail: ["policy": "p1", "effect": "allow", "note": "quote \" backslash \\ newline \n tab \t bell \u{7}"])
        let system = AuditEntry(at: epoch.addingTimeInterval(1), actor: .system, action: .promptExpired)
        entry.seq = 42  // ignored: the store numbers entries itself
        let sent = entry
        let seqs = try fixture.store.write { writer in [try writer.append(sent), try writer.append(system)] }
        #expect(seqs == [1, 2])
        let back = try fixture.store.read { try $0.audit(query: AuditQuery()) }
        var expected = sent
        expected.seq = 1
        var expectedSystem = system
        expectedSystem.seq = 2
        // The store adds the chain links and the purpose hash (AuditChainTests checks them).
        expected.purposeHash = back.first?.purposeHash
        expected.prevHash = String(repeating: "0", count: 64)
        expected.hash = back.first?.hash
        expected.pseudonym = back.first?.pseudonym  // the user's key (ErasureFlowTests checks it)
        #expect(back.first?.pseudonym?.hasPrefix("p_") == true)
        expectedSystem.prevHash = back.first?.hash
        expectedSystem.hash = back.last?.hash
        #expect(back.first?.purposeHash?.count == 64 && back.last?.hash?.count == 64)
        #expect(back == [expected, expectedSystem])
        #expect(try fixture.store.read { try $0.lastAuditSeq() } == 2)
    }

    @Test(arguments: StoreKind.allCases) func seqIsGapFreeAcrossConcurrentWritesAndFailedBodies(_ kind: StoreKind) throws {
        struct Refused: Error {}
        let fixture = try kind.open()
        let store = fixture.store
        let u = try user("u1"), a = try app("com.a.b")
        let threads = 32, perThread = 15
        let seqs = Collected<Int64>()
        onThreads(threads) { thread in
            for step in 0..<perThread {
                do {
                    let seq = try store.write { writer -> Int64 in
                        let seq = try writer.append(.change(u, a, .camera))
                        if (thread + step) % 5 == 0 { throw Refused() }  // rolled back with its entry
                        return seq
                    }
                    seqs.append(seq)
                } catch is Refused {
                } catch {
                    Issue.record("write failed: \(error)")
                }
            }
        }
        let committed = seqs.elements.sorted()
        #expect(committed == Array(1...Int64(committed.count)))
        let entries = try store.read { try $0.audit(query: AuditQuery(limit: 10_000)) }
        #expect(entries.map(\.seq) == committed)
        if let sqlite = fixture.sqlite {  // group commit: fewer commits than bodies
            let statistics = sqlite.pool.writer.currentStatistics
            #expect(statistics.commits < statistics.committedWrites)
        }
    }

    @Test(arguments: StoreKind.allCases) func queriesFilterAndPage(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let u1 = try user("u1"), u2 = try user("u2"), a = try app("com.a.b"), b = try app("com.c.d")
        try fixture.store.write { writer in
            for index in 0..<20 {
                let entry = AuditEntry.change(
                    index % 2 == 0 ? u1 : u2, index % 3 == 0 ? a : b, index % 4 == 0 ? .camera : .location,
                    at: epoch.addingTimeInterval(Double(index)),
                    action: index % 5 == 0 ? .authorizationRevoked : .authorizationSet)
                try writer.append(entry)
            }
        }
        func seqs(_ query: AuditQuery) throws -> [Int64] { try fixture.store.read { try $0.audit(query: query) }.map(\.seq) }
        let all = Array(Int64(1)...20)
        #expect(try seqs(AuditQuery(limit: 100)) == all)
        #expect(try seqs(AuditQuery(user: u1)) == all.filter { ($0 - 1) % 2 == 0 })
        #expect(try seqs(AuditQuery(app: a, after: 4)) == all.filter { ($0 - 1) % 3 == 0 && $0 > 4 })
        #expect(try seqs(AuditQuery(service: .camera, limit: 2)) == [1, 5])
        #expect(try seqs(AuditQuery(action: .authorizationRevoked)) == [1, 6, 11, 16])
        #expect(try seqs(AuditQuery(since: epoch.addingTimeInterval(5), until: epoch.addingTimeInterval(8))) == [6, 7, 8])
        #expect(
            try seqs(AuditQuery(user: u2, app: b, service: .location, action: .authorizationSet))
                == all.filter {
                    let i = $0 - 1
                    return i % 2 == 1 && i % 3 != 0 && i % 4 != 0 && i % 5 != 0
                })
    }

    /// A user's history, newest first, paged by `before` (the consent pages' history).
    @Test(arguments: StoreKind.allCases) func queriesPageNewestFirst(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let u1 = try user("u1"), u2 = try user("u2"), a = try app("com.a.b")
        try fixture.store.write { writer in
            for index in 0..<20 { try writer.append(.change(index % 2 == 0 ? u1 : u2, a, .camera)) }
        }
        func seqs(_ query: AuditQuery) throws -> [Int64] { try fixture.store.read { try $0.audit(query: query) }.map(\.seq) }
        #expect(try seqs(AuditQuery(user: u1, newestFirst: true, limit: 4)) == [19, 17, 15, 13])
        #expect(try seqs(AuditQuery(user: u1, before: 13, newestFirst: true, limit: 4)) == [11, 9, 7, 5])
        #expect(try seqs(AuditQuery(user: u1, before: 5, newestFirst: true, limit: 4)) == [3, 1])
        #expect(try seqs(AuditQuery(after: 16, newestFirst: true)) == [20, 19, 18, 17])
        #expect(try seqs(AuditQuery(before: 4)) == [1, 2, 3], "before bounds the ascending order too")
    }
}
