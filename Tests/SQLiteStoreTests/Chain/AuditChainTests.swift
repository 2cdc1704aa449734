import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

/// `verifyAuditChain` pointing at the row an attacker edited or deleted with the sqlite3 shell
/// (the conformance suite's AuditChainTests check the chain after real flows on both stores).
@Suite struct AuditChainTests {
    @Test(arguments: [1, 17, 40])
    func anEditedRowIsReported(seq: Int64) throws {
        let fixture = try StoreFixture()
        let u = try user("u1"), a = try app("com.example.a")
        for _ in 0..<40 { _ = try fixture.store.write { try $0.append(.change(u, a, .camera)) } }
        #expect(try fixture.store.verifyAuditChain(batchSize: 16, progress: nil).isIntact)

        _ = try sqlite3(
            fixture.store.path,
            """
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
        _ = try sqlite3(
            fixture.store.path,
            """
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
}
