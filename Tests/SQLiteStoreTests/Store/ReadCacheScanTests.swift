import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

/// Reads of keys that have no record (made-up user ids, a scan) are cached within a bound of
/// their own, so they never push the real records out of the read cache.
@Suite struct ReadCacheScanTests {
    let maps: AppID

    init() throws {
        maps = try app("com.example.maps")
    }

    func key(_ user: String) throws -> AuthorizationKey {
        AuthorizationKey(user: try UserID(user), app: maps, service: .camera)
    }

    func record(_ key: AuthorizationKey) -> StoredAuthorization {
        StoredAuthorization(
            user: key.user, app: key.app, service: key.service, status: .denied, level: nil, provisional: false,
            once: false, expiresAt: nil, reason: .userSet, purpose: nil, declinedLevels: [], updatedAt: epoch, version: 1)
    }

    /// Looks `keys` up (with their users' settings) and returns how many were hits.
    func hits(_ cache: ReadCache, _ keys: [AuthorizationKey]) -> Int {
        keys.count { cache.lookup($0, withSettings: true, readAt: cache.generation) != nil }
    }

    @Test func aScanOfMadeUpKeysLeavesTheRealRecordsCached() throws {
        let cache = ReadCache(capacity: 1_000)
        let real = try (0..<800).map { try key("real-\($0)") }
        for key in real {
            cache.insert(key, stored: record(key), settings: .some(nil), readAt: cache.generation)
        }
        #expect(hits(cache, real) == real.count)
        // An app key reads 100 times the cache's size of user ids that have no record.
        for index in 0..<100_000 {
            let madeUp = try key("made-up-\(index)")
            if cache.lookup(madeUp, withSettings: true, readAt: cache.generation) == nil {
                cache.insert(madeUp, stored: nil, settings: .some(nil), readAt: cache.generation)
            }
        }
        #expect(hits(cache, real) == real.count, "the scan evicted the real records")
        let statistics = cache.statistics
        #expect(statistics.entries <= 2 * 800 + ReadCache.absentCapacity(for: 1_000) * 2)
        #expect(statistics.clears == 0, "the real records were dropped")
        // "No record" is still cached, up to its own bound.
        let absent = try key("nobody")
        cache.insert(absent, stored: nil, settings: .some(nil), readAt: cache.generation)
        let found = try #require(cache.lookup(absent, withSettings: true, readAt: cache.generation))
        #expect(found.stored == nil && found.settings == nil)
    }

    @Test func aWriteRemovesAnAbsentEntryAndTheRecordReplacesIt() throws {
        let cache = ReadCache(capacity: 100)
        let key = try key("u1")
        cache.insert(key, stored: nil, settings: .some(nil), readAt: cache.generation)
        cache.invalidate(keys: [key], users: [key.user])
        #expect(cache.lookup(key, withSettings: false, readAt: cache.generation) == nil)
        cache.insert(key, stored: record(key), settings: .some(nil), readAt: cache.generation)
        #expect(cache.lookup(key, withSettings: true, readAt: cache.generation)?.stored == record(key))
    }
}
