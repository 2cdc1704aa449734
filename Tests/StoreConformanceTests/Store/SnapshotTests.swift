import Foundation
import PermissionDomain
import TestSupport
import Testing

/// A read snapshot kept open across calls (`PermissionStore.openSnapshot`) on both stores: it
/// keeps the state of its opening while writes go on, from whichever thread reads it, holds one
/// connection until closed, and throws once closed.
@Suite struct SnapshotTests {
    @Test(arguments: StoreKind.allCases) func aSnapshotKeepsItsStateAcrossCallsAndThreadsUntilClosed(
        _ kind: StoreKind
    ) throws {
        let h = try Harness(kind)
        try h.grant(.camera, .full, .allow)
        let store = h.fixture.store
        let snapshot = try store.openSnapshot()
        #expect(h.fixture.snapshotConnectionsInUse == 1)
        let head = try snapshot.read { try $0.auditHead()?.seq }
        try h.grant(.microphone, .full, .allow)  // committed after the snapshot's first read
        let latest = try store.read { try $0.auditHead()?.seq }
        #expect(latest != head)

        let seen = Collected<Int64>()
        onThreads(1) { _ in
            do {
                seen.append(try snapshot.read { try $0.auditHead()?.seq } ?? -1)
                seen.append(Int64(try snapshot.read { try $0.exportRowCount(user: Fixtures.user, upTo: 100) }))
            } catch {
                seen.append(-2)
            }
        }
        #expect(seen.elements == [head ?? -1, 4], "the head and the rows of the opening: 1 record, 1 prompt, 2 entries")
        #expect(try store.read { try $0.exportRowCount(user: Fixtures.user, upTo: 100) } == 8)

        snapshot.close()
        #expect(h.fixture.snapshotConnectionsInUse == 0)
        let error = #expect(throws: PermissionError.self) { try snapshot.read { try $0.lastAuditSeq() } }
        guard case .unavailable = error else {
            Issue.record("expected unavailable once closed, got \(String(describing: error))")
            return
        }
        snapshot.close()
        #expect(h.fixture.snapshotConnectionsInUse == 0)
    }

    @Test(arguments: StoreKind.allCases) func theRowCountStopsPastItsLimitInEachListing(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        for service in [ServiceID.camera, .microphone, .bluetooth] { try h.grant(service, .full, .allow) }
        let count = { (limit: Int) in try h.fixture.store.read { try $0.exportRowCount(user: Fixtures.user, upTo: limit) } }
        #expect(try count(100) == 12, "3 records, 3 prompts, 6 entries")
        #expect(try count(12) == 12)
        #expect(try count(11) == 12, "3 + 3 + 6: no listing past 12")
        #expect(try count(2) == 9, "each listing stops at 3")
        #expect(try count(0) == 3)
        #expect(try h.fixture.store.read { try $0.exportRowCount(user: UserID(trusted: "nobody"), upTo: 100) } == 0)
    }
}
