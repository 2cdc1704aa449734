import Foundation
import PermissionDomain
import Synchronization
import TestSupport
import TestThreads
import Testing

@testable import SQLiteStore

/// An audit entry (what the event feed sends) becomes readable only once the read cache no
/// longer holds what its transaction changed: a backend that re-checks a key on a `revoke`
/// event must read the new status, never the cached old one.
@Suite(.timeLimit(.minutes(1)), .blocksItsThread) struct AuditVisibilityTests {
    @Test func anEntryIsHiddenBetweenTheCommitAndTheCacheInvalidation() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let u1 = try user("u1")
        let maps = try app("com.example.maps")
        func status() throws -> AuthorizationStatus? {
            try store.read { try $0.authorizationAndSettings(user: u1, app: maps, service: .camera, withSettings: false) }
                .stored?.status
        }
        func feed() throws -> (entries: [Int64], last: Int64) {
            try store.read { reader in
                (try reader.audit(query: AuditQuery(after: 0, limit: 100)).map(\.seq), try reader.lastAuditSeq())
            }
        }
        #expect(try status() == nil)  // cached: no record
        #expect(try feed().last == 0)

        let tracker = try #require(store.readCacheTracker)
        let paused = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        tracker.afterCommit.withLock { hook in
            hook = {
                paused.signal()
                resume.wait()
            }
        }
        let done = DispatchSemaphore(value: 0)
        Thread {
            _ = try? store.write { writer in
                try writer.save(
                    StoredAuthorization(
                        user: u1, app: maps, service: .camera, status: .denied, level: nil, provisional: false, once: false,
                        expiresAt: nil, reason: .userSet, purpose: nil, declinedLevels: [], updatedAt: epoch, version: 1))
                try writer.append(.change(u1, maps, .camera))
            }
            done.signal()
        }.start()
        try #require(paused.wait(timeout: .now() + 10) == .success)
        tracker.afterCommit.withLock { $0 = nil }
        // Committed, and the cache still says "no record": the entry must not be readable yet.
        let during = try feed()
        #expect(try status() == nil)
        resume.signal()
        #expect(during.entries.isEmpty, "the feed read entry \(during.entries) before the cache forgot the old row")
        #expect(during.last == 0)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(try feed().entries == [1])
        #expect(try feed().last == 1)
        #expect(try status() == .denied)
    }
}
