import Foundation
import PermissionDomain
import StoreTestSupport
import Synchronization
import TestSupport
import TestThreads
import Testing

@testable import SQLiteStore

/// The hot path's read cache (`ReadCache`) and how the writer keeps it in step
/// (`ReadCacheTracker`): every change, by whatever statement, is seen by the next read.
@Suite struct ReadCacheTests {
    let maps: AppID
    let u1: UserID

    init() throws {
        maps = try app("com.example.maps")
        u1 = try user("u1")
    }

    func record(_ user: UserID, version: Int64, status: AuthorizationStatus = .authorized) throws -> StoredAuthorization {
        StoredAuthorization(
            user: user, app: maps, service: .location, status: status, level: status == .authorized ? .always : nil,
            provisional: true, once: version.isMultiple(of: 2), expiresAt: version.isMultiple(of: 2) ? epoch + 60 : nil,
            reason: .userConsent, purpose: try purpose("Nearby stops, version \(version)."),
            declinedLevels: version > 1 ? [.whenInUse] : [], updatedAt: epoch + Double(version), version: version)
    }

    func status(
        _ store: SQLitePermissionStore, _ user: UserID, withSettings: Bool = true
    ) throws
        -> (stored: StoredAuthorization?, settings: UserSettings?)
    {
        try store.read { try $0.authorizationAndSettings(user: user, app: maps, service: .location, withSettings: withSettings) }
    }

    /// The same read without the cache (`authorization(user:app:service:)` always reads the file).
    func fromFile(_ store: SQLitePermissionStore, _ user: UserID) throws -> StoredAuthorization? {
        try store.read { try $0.authorization(user: user, app: maps, service: .location) }
    }

    @Test func aSecondReadIsAHitAndEqualsTheFile() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.write { try $0.save(try record(u1, version: 2)) }
        try store.write { try $0.save(UserSettings(user: u1, locationServicesEnabled: false, updatedAt: epoch)) }
        let first = try status(store, u1)
        let second = try status(store, u1)
        #expect(first.stored == second.stored && first.settings == second.settings)
        #expect(second.stored == (try fromFile(store, u1)))
        #expect(second.settings == UserSettings(user: u1, locationServicesEnabled: false, updatedAt: epoch))
        let statistics = try #require(store.readCacheStatistics)
        #expect(statistics.misses == 1 && statistics.hits == 1 && statistics.entries == 2)
        // "No record" and "no settings" are cached too.
        let nobody = try user("nobody")
        for _ in 0..<2 {
            let none = try status(store, nobody)
            #expect(none.stored == nil && none.settings == nil)
        }
        #expect(store.readCacheStatistics?.hits == 2)
    }

    @Test func everyWriteIsSeenByTheNextRead() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        _ = try status(store, u1)  // cached: no record
        for version in Int64(1)...4 {
            try store.write { try $0.save(try record(u1, version: version)) }
            #expect(try status(store, u1).stored == (try record(u1, version: version)))
            _ = try status(store, u1)
        }
        try store.write { try $0.save(UserSettings(user: u1, locationServicesEnabled: false, updatedAt: epoch)) }
        #expect(try status(store, u1).settings?.locationServicesEnabled == false)
        try store.write { try $0.save(UserSettings(user: u1, locationServicesEnabled: true, updatedAt: epoch + 1)) }
        #expect(try status(store, u1).settings?.locationServicesEnabled == true)
        #expect(store.readCacheStatistics?.hits ?? 0 >= 4)
    }

    @Test func changesMadeByAnyStatementAreSeen() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.write { try $0.save(try record(u1, version: 1)) }
        try store.write { try $0.save(UserSettings(user: u1, locationServicesEnabled: false, updatedAt: epoch)) }
        _ = try status(store, u1)
        // Statements no write path of the model uses today: the triggers see them anyway.
        try store.pool.write {
            try $0.execute("UPDATE authorizations SET version = version + 1, status = 'denied', level = NULL")
        }
        #expect(try status(store, u1).stored?.version == 2)
        #expect(try status(store, u1).stored?.status == .denied)
        try store.pool.write { try $0.execute("DELETE FROM user_settings") }
        #expect(try status(store, u1).settings == nil)
        try store.pool.write { try $0.execute("DELETE FROM authorizations") }
        #expect(try status(store, u1).stored == nil)
        #expect(store.readCacheStatistics?.clears == 0)
    }

    @Test func aRolledBackBodyLeavesTheCachedRecordAndItsNeighboursCommit() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let u2 = try user("u2")
        try store.write { try $0.save(try record(u1, version: 1)) }
        _ = try status(store, u1)
        _ = try status(store, u2)
        // Two bodies in flight together, so they may share a batch: one fails, one commits.
        let failure = Shared()
        onThreads(2) { index in
            do {
                if index == 0 {
                    try store.write { writer in
                        try writer.save(try self.record(self.u1, version: 5))
                        throw CancellationError()
                    }
                } else {
                    try store.write { try $0.save(try self.record(u2, version: 1)) }
                }
            } catch {
                failure.value.store(1, ordering: .relaxed)
            }
        }
        #expect(failure.value.load(ordering: .relaxed) == 1)
        #expect(try status(store, u1).stored?.version == 1)
        #expect(try status(store, u2).stored?.version == 1)
        #expect(try fromFile(store, u1)?.version == 1)
    }

    /// The triggers hand keys over as rows change, so a body rolled back to its savepoint has
    /// already handed over its own: the record it touched is removed from the cache all the same,
    /// and its next read is a miss that reads the committed record from the file.
    @Test func aRolledBackBodysKeyCostsAMissNotAStaleRead() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.write { try $0.save(try record(u1, version: 1)) }
        _ = try status(store, u1)
        let hit = try #require(store.readCacheStatistics)
        _ = try status(store, u1)
        #expect(store.readCacheStatistics?.hits == hit.hits + 1)
        #expect(throws: CancellationError.self) {
            try store.write { writer in
                try writer.save(try self.record(self.u1, version: 5))
                throw CancellationError()
            }
        }
        let before = try #require(store.readCacheStatistics)
        #expect(try status(store, u1).stored?.version == 1)
        #expect(store.readCacheStatistics?.misses == before.misses + 1)
        #expect(try status(store, u1).stored?.version == 1)
        #expect(store.readCacheStatistics?.hits == before.hits + 1)
    }

    @Test func aTransactionChangingManyRowsEmptiesTheCache() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let rows = ReadCacheTracker.maximumTrackedChanges + 10
        try store.write { writer in
            for index in 0..<rows { try writer.save(try self.record(try user("m\(index)"), version: 1)) }
        }
        let reset = try user("m7")
        _ = try status(store, reset)
        let clearsBefore = try #require(store.readCacheStatistics?.clears)
        try store.pool.write { try $0.execute("UPDATE authorizations SET version = 9") }
        #expect(store.readCacheStatistics?.clears == clearsBefore + 1)
        #expect(try status(store, reset).stored?.version == 9)
    }

    @Test func maintenanceOutsideATransactionEmptiesTheCache() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.write { try $0.save(try record(u1, version: 1)) }
        _ = try status(store, u1)
        try store.pool.writeWithoutTransaction { try $0.execute("UPDATE authorizations SET version = 3") }
        #expect(try status(store, u1).stored?.version == 3)
        #expect(store.readCacheStatistics?.clears == 1)
    }

    /// Another process (here another connection, which is the same to SQLite) changes a cached
    /// record; the writer notices by `PRAGMA data_version` and the next reads see it.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func anotherProcessesCommitIsSeenWithinTheCheckInterval() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.write { try $0.save(try record(u1, version: 1)) }
        _ = try status(store, u1)
        #expect(try status(store, u1).stored?.version == 1)
        let other = try Database(path: store.path, mode: .readWrite, configuration: .init())
        try other.execute("UPDATE authorizations SET version = 7")
        other.close()
        let deadline = Date() + 5
        var seen = try status(store, u1).stored?.version
        while seen != 7 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            seen = try status(store, u1).stored?.version
        }
        #expect(seen == 7)
        #expect(store.readCacheStatistics?.clears ?? 0 >= 1)
    }

    /// Readers and a writer at once: once a write has returned, no read that starts after it
    /// returns an older version.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func noReadAfterAWriteReturnedSeesWhatItReplaced() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let writes: Int64 = 200
        let committed = Shared()
        let stale = Shared()
        let reads = Shared()
        try store.write { try $0.save(try record(u1, version: 0)) }
        onThreads(4) { index in
            if index == 0 {
                for version in 1...writes {
                    try? store.write { try $0.save(try self.record(self.u1, version: version)) }
                    committed.value.store(version, ordering: .releasing)
                }
                return
            }
            while committed.value.load(ordering: .acquiring) < writes {
                let floor = committed.value.load(ordering: .acquiring)
                let version = (try? self.status(store, self.u1).stored?.version) ?? -1
                if version < floor { stale.value.wrappingAdd(1, ordering: .relaxed) }
                reads.value.wrappingAdd(1, ordering: .relaxed)
            }
        }
        #expect(stale.value.load(ordering: .relaxed) == 0)
        #expect(reads.value.load(ordering: .relaxed) > 0)
        #expect(try status(store, u1).stored?.version == writes)
    }

    @Test func aReaderThatRacedACommitDoesNotStoreWhatItRead() throws {
        let cache = ReadCache(capacity: 10)
        let key = AuthorizationKey(user: u1, app: maps, service: .location)
        let before = cache.generation
        cache.invalidate(keys: [key], users: [])  // a commit lands between the reader's checkout and its insert
        cache.insert(key, stored: try record(u1, version: 1), settings: nil, readAt: before)
        #expect(cache.lookup(key, withSettings: false, readAt: cache.generation) == nil)
        cache.insert(key, stored: try record(u1, version: 2), settings: nil, readAt: cache.generation)
        #expect(cache.lookup(key, withSettings: false, readAt: cache.generation)?.stored == (try record(u1, version: 2)))
        // Without its settings the record alone does not answer a read that needs them.
        #expect(cache.lookup(key, withSettings: true, readAt: cache.generation) == nil)
        // A reader whose snapshot predates an invalidation does not mix the cache into it.
        let old = cache.generation
        cache.invalidate(keys: [AuthorizationKey(user: try user("other"), app: maps, service: .location)], users: [])
        #expect(cache.lookup(key, withSettings: false, readAt: old) == nil)
        #expect(cache.lookup(key, withSettings: false, readAt: cache.generation) != nil)
        // A commit that changed nothing cached moves no generation.
        let generation = cache.generation
        cache.invalidate(keys: [], users: [])
        #expect(cache.generation == generation)
    }

    /// Where a read runs is decided by `contains`: a grant with a purpose is answered from
    /// memory only with its app cached too (its `purposeChanged` needs the app's strings).
    @Test func aGrantWithAPurposeIsInMemoryOnlyWithItsApp() throws {
        let cache = ReadCache(capacity: 10)
        let grant = AuthorizationKey(user: u1, app: maps, service: .location)
        cache.insert(grant, stored: try record(u1, version: 1), settings: nil, readAt: cache.generation)
        #expect(!cache.contains(grant, withSettings: false), "the app is not cached yet")
        cache.insertApp(maps, app: nil, readAt: cache.generation)
        #expect(cache.contains(grant, withSettings: false))
        cache.invalidate(keys: [], users: [], apps: [maps])
        #expect(!cache.contains(grant, withSettings: false), "an app's change forgets it")
        let denied = AuthorizationKey(user: try user("u9"), app: maps, service: .location)
        cache.insert(
            denied, stored: try record(denied.user, version: 1, status: .denied), settings: nil, readAt: cache.generation)
        #expect(cache.contains(denied, withSettings: false), "a denial needs no app")
    }

    @Test func aFullCacheEvictsTheOldestRecordForTheNext() throws {
        let cache = ReadCache(capacity: 2)
        let keys = try (0..<3).map { AuthorizationKey(user: try user("c\($0)"), app: maps, service: .location) }
        for key in keys {
            cache.insert(key, stored: try record(key.user, version: 1), settings: nil, readAt: cache.generation)
        }
        #expect(cache.statistics.entries == 2 && cache.statistics.evictions == 1 && cache.statistics.clears == 0)
        #expect(cache.lookup(keys[0], withSettings: false, readAt: cache.generation) == nil)
        #expect(cache.lookup(keys[1], withSettings: false, readAt: cache.generation) != nil)
        #expect(cache.lookup(keys[2], withSettings: false, readAt: cache.generation) != nil)
    }

    @Test func sizeZeroReadsEverythingFromTheFile() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLitePermissionStore.open(path: directory.file("p.sqlite"), keyring: .forTests, readCacheEntries: 0)
        try store.write { try $0.save(try record(u1, version: 1)) }
        #expect(try status(store, u1).stored?.version == 1)
        try store.write { try $0.save(try record(u1, version: 2)) }
        #expect(try status(store, u1).stored?.version == 2)
        #expect(store.readCacheStatistics == nil)
        #expect(try store.warmReadCache() == .init(loaded: 0, skipped: 0, full: false, stopped: false))
    }

    @Test func warmUpLoadsEveryRecordWithItsUsersSettings() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("p.sqlite")
        let users = try (0..<300).map { try user("w\($0)") }
        do {
            let store = try SQLitePermissionStore.open(path: path, keyring: .forTests, readCacheEntries: 0)
            try store.write { writer in
                for (index, u) in users.enumerated() {
                    try writer.save(
                        try self.record(u, version: Int64(1 + index % 3), status: index % 5 == 0 ? .denied : .authorized))
                    if index.isMultiple(of: 7) {
                        try writer.save(UserSettings(user: u, locationServicesEnabled: false, updatedAt: epoch))
                    }
                }
            }
        }
        let store = try SQLitePermissionStore.open(path: path, keyring: .forTests)
        var progress: [Int] = []
        let result = try store.warmReadCache(pageSize: 64, progress: { progress.append($0) })
        #expect(result == .init(loaded: 300, skipped: 0, full: false, stopped: false))
        #expect(progress == [64, 128, 192, 256, 300])
        #expect(store.readCacheStatistics?.entries == 600)
        for u in users {
            let cached = try status(store, u)
            #expect(cached.stored == (try fromFile(store, u)), "\(u)")
            #expect(cached.settings == (try store.read { try $0.userSettings(u) }), "\(u)")
        }
        #expect(store.readCacheStatistics?.misses == 0)
        #expect(store.readCacheStatistics?.hits == 300)
    }

    @Test func warmUpStopsWhenFullOrAsked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("p.sqlite")
        do {
            let store = try SQLitePermissionStore.open(path: path, keyring: .forTests, readCacheEntries: 0)
            try store.write { writer in
                for index in 0..<50 { try writer.save(try self.record(try user("f\(index)"), version: 1)) }
            }
        }
        let small = try SQLitePermissionStore.open(path: path, keyring: .forTests, readCacheEntries: 20)
        #expect(try small.warmReadCache(pageSize: 8) == .init(loaded: 16, skipped: 0, full: true, stopped: false))
        let stopped = try SQLitePermissionStore.open(path: path, keyring: .forTests)
        #expect(
            try stopped.warmReadCache(pageSize: 8, shouldStop: { true })
                == .init(loaded: 0, skipped: 0, full: false, stopped: true))
    }
}

/// An atomic counter that threads can share.
private final class Shared: Sendable {
    let value = Atomic<Int64>(0)
}
