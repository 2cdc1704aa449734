import AuditKeys
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

        let error = #expect(throws: PermissionError.self) {
            try service.eraseUser(UserID(trusted: "nobody"), actor: admin, requestId: nil)
        }
        guard case .notFound = error else {
            Issue.record("expected notFound, got \(String(describing: error))")
            return
        }
        // Its body ran on the writer before the write returned: a request it made is still set.
        #expect(!checkpointer.isScrubRequested)
        _ = try service.setAuthorization(
            user: Fixtures.otherUser, app: Fixtures.app, service: .camera, status: .denied, level: nil, actor: admin,
            requestId: nil)  // a commit after it
        #expect(!checkpointer.isScrubRequested)
        // Whatever that commit asked for has run its course: the checkpointer's queue (an
        // attempt starts), the writer's (its truncation), the checkpointer's again (counted).
        checkpointer.waitForRunningCheckpoint()
        try store.write { _ in }
        checkpointer.waitForRunningCheckpoint()
        #expect(checkpointer.statistics.scrubs == 0 && checkpointer.statistics.scrubRetries == 0)

        _ = try service.eraseUser(Fixtures.user, actor: admin, requestId: nil)
        let deadline = Date().addingTimeInterval(20)
        while checkpointer.statistics.scrubs == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(checkpointer.statistics.scrubs == 1)
        let wal = try FileManager.default.attributesOfItem(atPath: directory.file("p.sqlite-wal"))[.size] as? Int
        #expect(wal == 0)
    }

    /// The erased user's key, kept unwrapped after a read of their entries, leaves memory with
    /// the erasure (a core dump, a read of the process's memory, would otherwise still hold it).
    @Test func theErasedUsersKeyLeavesMemory() throws {
        let directory = try TemporaryDirectory()
        let keyring = try AuditKeyring(serverKey: AuditKeyring.newServerKey())
        let store = try SQLitePermissionStore.open(path: directory.file("p.sqlite"), keyring: keyring)
        let service = PermissionService(store: store, clock: ManualClock(Fixtures.t0))
        let admin = Actor(keyId: "k-admin", role: "admin")
        _ = try service.setAuthorization(
            user: Fixtures.user, app: Fixtures.app, service: .camera, status: .denied, level: nil, actor: admin,
            requestId: nil)
        let read = try store.read { try $0.audit(query: AuditQuery(user: Fixtures.user, after: 0, limit: 10)) }
        #expect(read.map(\.user) == [Fixtures.user], "read, and unsealed, with the user's key")
        let wrappedKey = try #require(
            try Database(path: directory.file("p.sqlite"), mode: .readOnly).withStatement(
                "SELECT wrapped_key FROM audit_subjects WHERE user = ?1"
            ) { statement in
                statement.bind(Fixtures.user.rawValue, at: 1)
                return try statement.step() ? statement.string(at: 0) : nil
            })
        #expect(keyring.remembers(wrappedKey: wrappedKey))
        // A snapshot from before the erasure (an export being downloaded) reads on after it.
        let snapshot = try store.openSnapshot()
        defer { snapshot.close() }
        let before = try snapshot.read { try $0.audit(query: AuditQuery(user: Fixtures.user, after: 0, limit: 10)) }
        #expect(before.count == 1)
        _ = try service.eraseUser(Fixtures.user, actor: admin, requestId: nil)
        #expect(!keyring.remembers(wrappedKey: wrappedKey))
        let during = try snapshot.read { try $0.audit(query: AuditQuery(user: Fixtures.user, after: 0, limit: 10)) }
        #expect(during.map(\.user) == [Fixtures.user], "the snapshot still reads the entry it holds")
        #expect(!keyring.remembers(wrappedKey: wrappedKey), "without keeping the erased user's key")
    }

    /// The scrub's checkpoint is no commit: the writer must not take the log it reset for
    /// another process's commit, which would empty the whole read cache at every erasure.
    @Test func theScrubLeavesTheReadCacheAsItIs() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLitePermissionStore.open(path: directory.file("p.sqlite"), keyring: .forTests)
        let service = PermissionService(store: store, clock: ManualClock(Fixtures.t0))
        let admin = Actor(keyId: "k-admin", role: "admin")
        for user in [Fixtures.user, Fixtures.otherUser] {
            _ = try service.setAuthorization(
                user: user, app: Fixtures.app, service: .camera, status: .denied, level: nil, actor: admin, requestId: nil)
        }
        _ = try service.authorization(user: Fixtures.otherUser, app: Fixtures.app, service: .camera)  // cached
        let before = try #require(store.readCacheStatistics)
        _ = try service.eraseUser(Fixtures.user, actor: admin, requestId: nil)
        let checkpointer = store.pool.writer.checkpointer
        let deadline = Date().addingTimeInterval(20)
        while checkpointer.statistics.scrubs == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(checkpointer.statistics.scrubs == 1)
        // Past the writer's check for other processes' commits, and a write of its own.
        Thread.sleep(forTimeInterval: 0.4)  // four of its 100 ms checks
        _ = try service.setAuthorization(
            user: Fixtures.otherUser, app: Fixtures.app, service: .microphone, status: .denied, level: nil, actor: admin,
            requestId: nil)
        #expect(store.readCacheStatistics?.clears == before.clears, "the cache was emptied")
    }
}
