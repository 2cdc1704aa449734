import Foundation
import PermissionDomain
import Synchronization
import TestSupport
import Testing

@testable import SQLiteStore

/// Another process's commit (`permission-server keys revoke` on the live file) as the running
/// server's observers hear of it: keys kept verified are forgotten before its revision shows,
/// so that an event stream, which reads the log only up to the revision shown, looks at its key
/// again before it could send an entry committed after the revocation.
@Suite(.timeLimit(.minutes(1)), .blocksItsThread) struct ForeignCommitOrderTests {
    private static let admin = Actor(keyId: "k-admin", role: "admin")

    @Test func keysAreToldBeforeAnotherProcessesRevisionShows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("p.sqlite")
        let server = try SQLitePermissionStore.open(path: path, keyring: .forTests)
        let service = PermissionService(store: server, clock: ManualClock(Fixtures.t0))
        let id = try KeyID("00000000000000a1")
        _ = try service.createKey(
            id: id, role: .auditor, app: nil, name: "auditor", secretHash: Array(repeating: 1, count: 32),
            actor: Self.admin, requestId: nil)
        let before = try server.visibleRevision()
        let told = Mutex<[(visible: Int64, changes: VisibleChanges)]>([])
        server.observeChanges { changes in
            let visible = (try? server.visibleRevision()) ?? -1
            told.withLock { $0.append((visible, changes)) }
        }

        // Another process: a store of its own on the same file, as the subcommand opens it.
        let revocation = try {
            let other = try SQLitePermissionStore.open(path: path, keyring: .forTests)
            _ = try PermissionService(store: other, clock: ManualClock(Fixtures.t0))
                .revokeKey(id: id, actor: Self.admin, requestId: nil)
            return try other.visibleRevision()
        }()
        #expect(revocation > before)

        let deadline = Date() + 10
        while try server.visibleRevision() < revocation && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(try server.visibleRevision() == revocation)
        let seen = told.withLock { $0 }
        let firstKeyChange = try #require(seen.first { $0.changes.keysChanged }, "\(seen)")
        #expect(firstKeyChange.visible < revocation, "keys told only once the revocation showed: \(seen)")
        #expect(seen.contains { $0.changes.revision == revocation }, "\(seen)")
        #expect(try service.key(id: id)?.isActive == false)
    }
}
