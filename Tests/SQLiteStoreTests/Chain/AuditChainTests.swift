import Foundation
import PermissionDomain
@testable import SQLiteStore
import Testing

/// The audit hash chain: intact after real flows (group-committed and concurrent), and
/// `verifyAuditChain` pointing at the row an attacker edited or deleted with the sqlite3 shell.
@Suite struct AuditChainTests {
    let admin = Actor(keyId: "admin-1", role: "admin")
    let consent = Actor(keyId: "consent-1", role: "consent")
    let appActor = Actor(keyId: "app-1", role: "app")

    /// Registers `count` apps and runs request → prompt → decision flows for many users on
    /// eight threads at once, so the writer group-commits them.
    private func runFlows(_ store: SQLitePermissionStore, users: Int = 12) throws {
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
                    let outcome = try service.request(user: u, app: a, service: .camera, level: .full, actor: appActor, requestId: nil)
                    if case .prompted(let prompt, _) = outcome {
                        _ = try service.decide(promptID: prompt.id, choice: index % 2 == 0 ? "allow" : "deny", actor: consent, requestId: nil)
                    }
                    if index % 5 == 0 {
                        _ = try service.putApp(id: a, name: "Scanner \(thread)", purposeStrings: [
                            "NSCameraUsageDescription": try purpose("Scan documents.")], actor: admin, requestId: nil)
                    }
                }
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.elements.isEmpty)
    }

    @Test func chainIsIntactAfterConcurrentFlows() throws {
        let fixture = try StoreFixture()
        try runFlows(fixture.store)
        let last = try fixture.store.read { try $0.lastAuditSeq() }
        #expect(last > 8 * 12 * 2)
        let report = try fixture.store.verifyAuditChain(batchSize: 50, progress: nil)
        #expect(report.isIntact)
        #expect(report.intactLength == last)
        #expect(report.totalEntries == last)
        #expect(report.lastIntactSeq == last)
        #expect(fixture.store.pool.writer.currentStatistics.largestBatch > 1)
        // Each entry links to its predecessor, as read back through the store.
        let entries = try fixture.store.read { try $0.audit(query: AuditQuery(limit: 100_000)) }
        #expect(entries.first?.prevHash == String(repeating: "0", count: 64))
        for (earlier, later) in zip(entries, entries.dropFirst()) { #expect(later.prevHash == earlier.hash) }
        #expect(report.lastIntactHash == entries.last?.hash)
        // The read-only verification of the file agrees.
        #expect(try SQLitePermissionStore.verifyAuditChain(path: fixture.store.path, batchSize: 7) == report)
    }

    @Test func aRolledBackAppendLeavesTheChainIntact() throws {
        struct Refused: Error {}
        let fixture = try StoreFixture()
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

    @Test(arguments: [1, 17, 40])
    func anEditedRowIsReported(seq: Int64) throws {
        let fixture = try StoreFixture()
        let u = try user("u1"), a = try app("com.example.a")
        for _ in 0..<40 { _ = try fixture.store.write { try $0.append(.change(u, a, .camera)) } }
        #expect(try fixture.store.verifyAuditChain(batchSize: 16, progress: nil).isIntact)

        _ = try sqlite3(fixture.store.path, """
            DROP TRIGGER audit_never_updated; UPDATE audit SET to_status = 'authorized' WHERE seq = \(seq);
            """)
        let report = try fixture.store.verifyAuditChain(batchSize: 16, progress: nil)
        #expect(report.firstFailingSeq == seq)
        #expect(report.failure == .hashMismatch)
        #expect(report.intactLength == seq - 1)
        #expect(report.totalEntries == 40)
        #expect(try SQLitePermissionStore.verifyAuditChain(path: fixture.store.path, batchSize: 5) == report)
    }

    @Test func aReplacedHashBreaksTheNextLink() throws {
        let fixture = try StoreFixture()
        let u = try user("u1"), a = try app("com.example.a")
        for _ in 0..<10 { _ = try fixture.store.write { try $0.append(.change(u, a, .camera)) } }
        _ = try sqlite3(fixture.store.path, """
            DROP TRIGGER audit_never_updated; UPDATE audit SET prev_hash = hash WHERE seq = 6;
            """)
        let report = try fixture.store.verifyAuditChain(batchSize: 4, progress: nil)
        #expect(report.firstFailingSeq == 6)
        #expect(report.failure == .prevMismatch)
        #expect(report.intactLength == 5)
    }

    @Test func aDeletedRowIsAGap() throws {
        let fixture = try StoreFixture()
        let u = try user("u1"), a = try app("com.example.a")
        for _ in 0..<12 { _ = try fixture.store.write { try $0.append(.change(u, a, .camera)) } }
        _ = try sqlite3(fixture.store.path, "DROP TRIGGER audit_never_deleted; DELETE FROM audit WHERE seq = 9;")
        let report = try fixture.store.verifyAuditChain(batchSize: 3, progress: nil)
        #expect(report.firstFailingSeq == 9)
        #expect(report.failure == .seqGap)
        #expect(report.intactLength == 8)
        #expect(report.totalEntries == 11)
    }

    @Test func appendsAfterAnotherProcessAppendedStayChained() throws {
        let fixture = try StoreFixture()
        let u = try user("u1"), a = try app("com.example.a")
        _ = try fixture.store.write { try $0.append(.change(u, a, .camera)) }  // the writer caches the tip
        // Another writer of the file appends a correctly chained entry (as a subcommand would).
        let other = try SQLitePermissionStore.open(path: fixture.store.path)
        _ = try other.write { try $0.append(.change(u, a, .microphone)) }
        _ = try fixture.store.write { try $0.append(.change(u, a, .contacts)) }
        let report = try fixture.store.verifyAuditChain(batchSize: 10, progress: nil)
        #expect(report.isIntact)
        #expect(report.intactLength == 3)
    }
}
