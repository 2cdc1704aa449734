import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

/// The audit hash chain on both stores: intact after real flows (group-committed and
/// concurrent on SQLite), after rolled-back appends and after another writer's appends, and
/// the same hashes for the same entries whichever store keeps them.
@Suite struct AuditChainTests {
    let admin = Actor(keyId: "admin-1", role: "admin")
    let consent = Actor(keyId: "consent-1", role: "consent")
    let appActor = Actor(keyId: "app-1", role: "app")

    /// Registers `count` apps and runs request → prompt → decision flows for many users on
    /// eight threads at once, so the writer group-commits them.
    private func runFlows(_ store: any PermissionStore, users: Int = 12) throws {
        let service = PermissionService(store: store, clock: ManualClock(epoch))
        let a = try app("com.example.scanner")
        _ = try service.putApp(
            id: a, name: "Scanner", purposeStrings: ["NSCameraUsageDescription": try purpose("Scan documents.")],
            actor: admin, requestId: "r-app")
        let failures = Collected<String>()
        let (admin, consent, appActor) = (admin, consent, appActor)
        onThreads(8) { thread in
            do {
                for index in 0..<users {
                    let u = try user("u\(thread)-\(index)")
                    let outcome = try service.request(
                        user: u, app: a, service: .camera, level: .full, actor: appActor, requestId: nil)
                    if case .prompted(let prompt, _) = outcome {
                        _ = try service.decide(
                            promptID: prompt.id, choice: index % 2 == 0 ? "allow" : "deny", actor: consent, requestId: nil)
                    }
                    if index % 5 == 0 {
                        _ = try service.putApp(
                            id: a, name: "Scanner \(thread)",
                            purposeStrings: [
                                "NSCameraUsageDescription": try purpose("Scan documents.")
                            ], actor: admin, requestId: nil)
                    }
                }
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.elements.isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func chainIsIntactAfterConcurrentFlows(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        try runFlows(fixture.store)
        let last = try fixture.store.read { try $0.lastAuditSeq() }
        #expect(last > 8 * 12 * 2)
        let report = try fixture.store.verifyAuditChain(batchSize: 50, progress: nil)
        #expect(report.isIntact)
        #expect(report.intactLength == last)
        #expect(report.totalEntries == last)
        #expect(report.lastIntactSeq == last)
        // Each entry links to its predecessor, as read back through the store.
        let entries = try fixture.store.read { try $0.audit(query: AuditQuery(limit: 100_000)) }
        #expect(entries.first?.prevHash == String(repeating: "0", count: 64))
        for (earlier, later) in zip(entries, entries.dropFirst()) { #expect(later.prevHash == earlier.hash) }
        #expect(report.lastIntactHash == entries.last?.hash)
        if let sqlite = fixture.sqlite {
            #expect(sqlite.pool.writer.currentStatistics.largestBatch > 1)  // group-committed
            // The read-only verification of the file agrees.
            #expect(try SQLitePermissionStore.verifyAuditChain(path: sqlite.path, batchSize: 7) == report)
        }
    }

    @Test(arguments: StoreKind.allCases) func aRolledBackAppendLeavesTheChainIntact(_ kind: StoreKind) throws {
        struct Refused: Error {}
        let fixture = try kind.open()
        let u = try user("u1"), a = try app("com.example.a")
        _ = try fixture.store.write { try $0.append(.change(u, a, .camera)) }
        #expect(throws: Refused.self) {
            try fixture.store.write { writer -> Int in
                try writer.append(.change(u, a, .camera))
                throw Refused()
            }
        }
        _ = try fixture.store.write { try $0.append(.change(u, a, .microphone)) }
        let report = try fixture.store.verifyAuditChain(batchSize: 10, progress: nil)
        #expect(report.isIntact)
        #expect(report.intactLength == 2)
    }

    @Test(arguments: StoreKind.allCases) func appendsAfterAnotherProcessAppendedStayChained(_ kind: StoreKind) throws {
        let fixture = try kind.open()
        let u = try user("u1"), a = try app("com.example.a")
        _ = try fixture.store.write { try $0.append(.change(u, a, .camera)) }  // the writer caches the tip
        // Another writer appends a correctly chained entry (a subcommand on the SQLite file,
        // another replica on PostgreSQL).
        let other = try fixture.openAgain()
        _ = try other.write { try $0.append(.change(u, a, .microphone)) }
        _ = try fixture.store.write { try $0.append(.change(u, a, .contacts)) }
        let report = try fixture.store.verifyAuditChain(batchSize: 10, progress: nil)
        #expect(report.isIntact)
        #expect(report.intactLength == 3)
    }

    /// The chain's rule is the same on both stores (`copy --from FILE --to URI` and `audit
    /// verify` on either rely on it): the same entries read back the same, each chain verifies.
    @Test func theSameEntriesReadBackTheSameOnBothStores() throws {
        let entries = [
            AuditEntry(
                at: epoch, actor: Actor(keyId: "consent-1", role: "consent"), action: .promptAnswered, user: try user("u1"),
                app: try app("com.example.scanner"), service: .camera, from: AuthorizationSnapshot(status: .notDetermined),
                to: AuthorizationSnapshot(status: .authorized, level: .full, once: true), reason: .userConsent,
                purpose: try purpose("Scan documents. ✓"), promptId: try PromptID("p-1"), requestId: "r-1",
                detail: ["kind": "camera", "choice": "allow", "quote": "\" \\ \n"]),
            AuditEntry(at: epoch.addingTimeInterval(0.001), actor: .system, action: .promptExpired),
            .change(try user("u2"), try app("com.a.b"), .location, at: epoch.addingTimeInterval(86_400)),
        ]
        let chains = try StoreKind.allCases.map { kind -> [AuditEntry] in
            let fixture = try kind.open()
            for entry in entries { _ = try fixture.store.write { try $0.append(entry) } }
            #expect(try fixture.store.verifyAuditChain(batchSize: 2, progress: nil).intactLength == 3)
            return try fixture.store.read { try $0.audit(query: AuditQuery()) }
        }
        #expect(chains[0].count == 3)
        // Entries about a user are sealed with a random nonce under each store's own user key, so
        // the hashes differ; what the entries say does not.
        #expect(chains[0].map(\.withoutChainLinks) == chains[1].map(\.withoutChainLinks))
        #expect(chains.allSatisfy { $0[0].pseudonym != nil && $0[1].pseudonym == nil })
        #expect(chains[0][0].purposeHash != nil && chains[0][1].purposeHash == nil)
    }
}
