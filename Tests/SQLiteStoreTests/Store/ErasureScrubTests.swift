import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

/// An erasure empties the WAL once it has committed (``Checkpointer/scrubAfterCommit()``); an
/// erasure that finds nothing to erase, and is rolled back, asks for nothing.
@Suite struct ErasureScrubTests {
    @Test func onlyAnErasureThatCommitsEmptiesTheWAL() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLitePermissionStore.open(path: directory.file("p.sqlite"), keyring: .forTests)
        let service = PermissionService(store: store, clock: ManualClock(Fixtures.t0))
        let admin = Actor(keyId: "k-admin", role: "admin")
        _ = try service.putApp(
            id: Fixtures.app, name: "Maps", purposeStrings: Fixtures.allPurposeStrings, actor: admin, requestId: nil)
        _ = try service.setAuthorization(
            user: Fixtures.user, app: Fixtures.app, service: .camera, status: .denied, level: nil, actor: admin,
            requestId: nil)
        let checkpointer = store.pool.writer.checkpointer

        #expect(throws: PermissionError.self) { try service.eraseUser(UserID(trusted: "nobody"), actor: admin, requestId: nil) }
        _ = try service.setAuthorization(
            user: Fixtures.otherUser, app: Fixtures.app, service: .camera, status: .denied, level: nil, actor: admin,
            requestId: nil)  // a commit after it
        Thread.sleep(forTimeInterval: 0.3)
        #expect(checkpointer.statistics.scrubs == 0 && checkpointer.statistics.scrubRetries == 0)

        _ = try service.eraseUser(Fixtures.user, actor: admin, requestId: nil)
        let deadline = Date().addingTimeInterval(20)
        while checkpointer.statistics.scrubs == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(checkpointer.statistics.scrubs == 1)
        let wal = try FileManager.default.attributesOfItem(atPath: directory.file("p.sqlite-wal"))[.size] as? Int
        #expect(wal == 0)
    }
}
