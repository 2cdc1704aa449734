import Foundation
import TestSupport
import Testing

@testable import PermissionDomain

/// The read cache's compact records (``ReadCacheRecords``): every field comes back as stored,
/// a full cache evicts its oldest records, the symbol tables stay bounded, and "no record"
/// never takes a symbol.
@Suite struct ReadCacheRecordTests {
    let maps = AppID(trusted: "com.example.maps")

    func key(_ user: String, app: String = "com.example.maps", service: String = "location") -> AuthorizationKey {
        AuthorizationKey(user: UserID(trusted: user), app: AppID(trusted: app), service: ServiceID(trusted: service))
    }

    func record(_ key: AuthorizationKey, version: Int64 = 1, purpose: String? = nil) -> StoredAuthorization {
        StoredAuthorization(
            user: key.user, app: key.app, service: key.service, status: .denied, reason: .userSet,
            purpose: purpose.map(PurposeString.init(trusted:)), updatedAt: epoch, version: version)
    }

    func found(_ cache: ReadCache, _ key: AuthorizationKey) -> StoredAuthorization? {
        cache.lookup(key, withSettings: false, readAt: cache.generation)?.stored
    }

    /// Every combination of the fields a record keeps, each under a key of its own.
    func everyShape() -> [StoredAuthorization] {
        let levels: [Level?] = [nil, .whenInUse, .always, .full]
        let purposes: [PurposeString?] = [nil, PurposeString(trusted: "Shows nearby stops, with a longer text.")]
        let languages: [LanguageTag?] = [nil, LanguageTag(trusted: "de-CH")]
        let declined: [[Level]] = [[], [.always], [.full, .addOnly, .limited]]
        let times: [Date?] = [nil, epoch, Date(millisecondsSince1970: -1), Date(millisecondsSince1970: 4_102_444_800_123)]
        let versions: [Int64] = [0, 1, Int64(Int32.max) + 7, .max]
        var records: [StoredAuthorization] = []
        for status in AuthorizationStatus.allCases {
            for (index, reason) in Reason.allCases.enumerated() {
                for flags in 0..<8 {
                    let n = records.count
                    records.append(
                        StoredAuthorization(
                            user: UserID(trusted: "user-\(n)"), app: AppID(trusted: "com.example.app\(n % 3)"),
                            service: ServiceID(trusted: ["location", "camera", "contacts"][n % 3]), status: status,
                            level: levels[(index + flags) % levels.count], provisional: flags & 1 != 0,
                            once: flags & 2 != 0, expiresAt: times[(n + 1) % times.count], reason: reason,
                            purpose: purposes[n % 2], purposeLanguage: languages[(n / 2) % 2],
                            declinedLevels: declined[n % declined.count], buttonConfirmed: flags & 4 != 0,
                            updatedAt: times[n % times.count], version: versions[n % versions.count]))
                }
            }
        }
        return records
    }

    @Test func aRecordIsThirtyTwoBytesUnderOneInteger() {
        #expect(MemoryLayout<ReadCacheRecords.Record>.stride == 32)
        #expect(ReadCacheRecords.key(user: .max, appService: .max) == .max)
        #expect(ReadCacheRecords.key(user: 1, appService: 0) == 1 << 32)
        #expect(ReadCacheRecords.key(user: 0, appService: 1) == 1)
        #expect(ReadCacheRecords.key(user: 2, appService: 3) != ReadCacheRecords.key(user: 3, appService: 2))
    }

    @Test func everyFieldComesBackAsStored() {
        let records = everyShape()
        let cache = ReadCache(capacity: records.count)
        for stored in records {
            cache.insert(stored.key, stored: stored, settings: nil, readAt: cache.generation)
        }
        for stored in records {
            #expect(found(cache, stored.key) == stored)
        }
        #expect(records.contains { $0.declinedLevels == [.addOnly, .full, .limited] }, "kept in sorted order")
        #expect(cache.statistics.entries == records.count)
        #expect(cache.statistics.clears == 0)
        let symbols = cache.symbolCounts
        #expect(symbols.users == records.count && symbols.appServices == 3)
        // The warm-up's page insert keeps the same.
        let paged = ReadCache(capacity: records.count)
        #expect(paged.insert(page: records.map { ($0, nil) }, readAt: paged.generation) == .stored)
        for stored in records {
            #expect(found(paged, stored.key) == stored)
        }
    }

    @Test func settingsComeBackAsStored() {
        let cache = ReadCache(capacity: 10)
        let cases: [UserSettings?] = [
            nil, UserSettings(user: UserID(trusted: "s1")),
            UserSettings(
                user: UserID(trusted: "s2"), locationServicesEnabled: false, locale: LanguageTag(trusted: "pt-BR"),
                updatedAt: epoch),
            UserSettings(user: UserID(trusted: "s3"), locationServicesEnabled: true, locale: nil, updatedAt: epoch + 0.25),
        ]
        for (index, settings) in cases.enumerated() {
            let key = key("s\(index)")
            cache.insert(key, stored: record(key), settings: .some(settings), readAt: cache.generation)
        }
        for (index, settings) in cases.enumerated() {
            let key = key("s\(index)")
            let hit = cache.lookup(key, withSettings: true, readAt: cache.generation)
            #expect(hit != nil)
            #expect(hit?.stored == record(key))
            #expect(hit?.settings == settings)
        }
        #expect(cache.statistics.entries == 8)
        // A record read without its user's settings keeps whatever settings were cached.
        let s2 = key("s2", service: "camera")
        cache.insert(s2, stored: record(s2), settings: nil, readAt: cache.generation)
        #expect(cache.lookup(s2, withSettings: true, readAt: cache.generation)?.settings?.locale == LanguageTag(trusted: "pt-BR"))
        cache.invalidate(keys: [], users: [s2.user])
        #expect(cache.lookup(s2, withSettings: true, readAt: cache.generation) == nil)
        #expect(cache.lookup(s2, withSettings: false, readAt: cache.generation) != nil)
        #expect(cache.statistics.entries == 8)
    }

    /// A user's id goes with their last cached record, so the users never outnumber the
    /// records; (app, service) pairs and the distinct field combinations are bounded by the
    /// capacity even while the records are fewer (invalidated records leave them until the
    /// cache empties).
    @Test func symbolsLeftByInvalidatedRecordsAreBounded() {
        let cache = ReadCache(capacity: 3)
        for user in ["a", "b", "c"] {
            cache.insert(key(user), stored: record(key(user)), settings: .some(nil), readAt: cache.generation)
        }
        cache.invalidate(keys: [key("a")], users: [])
        #expect(cache.statistics.entries == 2 + 2 && cache.symbolCounts.users == 2, "a's id and settings went with a's record")
        cache.insert(key("d"), stored: record(key("d")), settings: nil, readAt: cache.generation)
        #expect(cache.statistics.clears == 0 && cache.statistics.evictions == 0 && cache.symbolCounts.users == 3)
        #expect(found(cache, key("a")) == nil, "d has the id a had")
        #expect(["b", "c", "d"].allSatisfy { found(cache, key($0)) == record(key($0)) })
        #expect(cache.lookup(key("d"), withSettings: true, readAt: cache.generation) == nil, "not a's settings")
        #expect(cache.lookup(key("b"), withSettings: true, readAt: cache.generation)?.stored == record(key("b")))

        let pairs = ReadCache(capacity: 3)
        for service in ["s1", "s2", "s3"] {
            pairs.insert(
                key("a", service: service), stored: record(key("a", service: service)), settings: nil, readAt: pairs.generation)
        }
        pairs.invalidate(keys: [key("a", service: "s1")], users: [])
        #expect(pairs.statistics.clears == 0 && pairs.symbolCounts.appServices == 3)
        pairs.insert(key("a", service: "s4"), stored: record(key("a", service: "s4")), settings: nil, readAt: pairs.generation)
        #expect(pairs.statistics.clears == 1 && pairs.symbolCounts.appServices == 1)
        #expect(found(pairs, key("a", service: "s4")) != nil && found(pairs, key("a", service: "s2")) == nil)

        // A new user whose pair does not fit: the cache empties, then keeps both.
        let pair = ReadCache(capacity: 2)
        for service in ["s1", "s2"] {
            pair.insert(
                key("a", service: service), stored: record(key("a", service: service)), settings: .some(nil),
                readAt: pair.generation)
        }
        pair.invalidate(keys: [key("a", service: "s1")], users: [])
        pair.insert(
            key("b", service: "s3"), stored: record(key("b", service: "s3")), settings: .some(nil), readAt: pair.generation)
        #expect(pair.statistics.clears == 1 && pair.symbolCounts.users == 1)
        #expect(
            pair.lookup(key("b", service: "s3"), withSettings: true, readAt: pair.generation)?.stored
                == record(key("b", service: "s3")))
        #expect(pair.lookup(key("a", service: "s2"), withSettings: true, readAt: pair.generation) == nil)

        let shapes = ReadCache(capacity: 3)
        for version in 1...3 {
            shapes.insert(
                key("a"), stored: record(key("a"), purpose: "Purpose \(version)."), settings: nil, readAt: shapes.generation)
        }
        #expect(shapes.statistics.clears == 0 && shapes.symbolCounts.shapes == 3)
        shapes.insert(key("a"), stored: record(key("a"), purpose: "Purpose 4."), settings: nil, readAt: shapes.generation)
        #expect(shapes.statistics.clears == 1 && shapes.symbolCounts.shapes == 1)
        #expect(found(shapes, key("a")) == record(key("a"), purpose: "Purpose 4."))
    }

    /// "No record" is kept by its strings: reads of made-up user ids never fill the users'
    /// table, which would empty the real records.
    @Test func noRecordNeverTakesASymbol() {
        let cache = ReadCache(capacity: 4)
        for user in ["a", "b"] {
            cache.insert(key(user), stored: record(key(user)), settings: .some(nil), readAt: cache.generation)
        }
        for index in 0..<1_000 {
            let madeUp = key("made-up-\(index)", app: "com.example.app\(index)", service: "s\(index)")
            cache.insert(madeUp, stored: nil, settings: .some(nil), readAt: cache.generation)
        }
        let symbols = cache.symbolCounts
        #expect(symbols.users == 2 && symbols.appServices == 1)
        #expect(symbols.shapes == 1, "equal fields share one id")
        for user in ["c", "d"] {
            cache.insert(key(user), stored: record(key(user)), settings: .some(nil), readAt: cache.generation)
        }
        #expect(cache.statistics.clears == 0)
        for user in ["a", "b", "c", "d"] {
            #expect(cache.lookup(key(user), withSettings: true, readAt: cache.generation)?.stored == record(key(user)))
        }
        // A known user's "no record" uses the user's cached settings.
        let absent = key("a", service: "camera")
        cache.insert(absent, stored: nil, settings: .some(nil), readAt: cache.generation)
        let hit = cache.lookup(absent, withSettings: true, readAt: cache.generation)
        #expect(hit != nil && hit?.stored == nil && hit?.settings == nil)
    }

    @Test func invalidatingKeysWithUnknownSymbolsRemovesOnlyThem() {
        let cache = ReadCache(capacity: 10)
        let cached = key("a")
        cache.insert(cached, stored: record(cached), settings: .some(nil), readAt: cache.generation)
        let unknown = [key("nobody"), key("a", app: "com.example.other"), key("a", service: "camera")]
        cache.insert(unknown[0], stored: nil, settings: .some(nil), readAt: cache.generation)
        let before = cache.generation
        cache.invalidate(keys: unknown, users: [UserID(trusted: "nobody"), UserID(trusted: "ghost")])
        #expect(cache.generation != before)
        #expect(cache.lookup(unknown[0], withSettings: false, readAt: cache.generation) == nil)
        #expect(cache.lookup(cached, withSettings: true, readAt: cache.generation)?.stored == record(cached))
        #expect(cache.statistics.entries == 2)
        cache.invalidate(keys: [cached], users: [cached.user])
        #expect(found(cache, cached) == nil && cache.statistics.entries == 0)
    }

    @Test func aPageIsStoredWholeOrNotAtAll() {
        let cache = ReadCache(capacity: 20)
        let page = (0..<10).map { record(key("p\($0)", service: "x\($0)")) }
        let stale = cache.generation
        cache.invalidate(keys: [key("other")], users: [])
        #expect(cache.insert(page: page.map { ($0, nil) }, readAt: stale) == .stale)
        #expect(cache.statistics.entries == 0)
        // The records fit, but the page's new (app, service) pairs might not.
        let earlier = (0..<15).map { key("u", service: "s\($0)") }
        for key in earlier {
            cache.insert(key, stored: record(key), settings: nil, readAt: cache.generation)
        }
        cache.invalidate(keys: Array(earlier.prefix(10)), users: [])
        #expect(cache.insert(page: page.map { ($0, nil) }, readAt: cache.generation) == .full)
        #expect(cache.statistics.entries == 5 && cache.statistics.clears == 0)
        #expect(page.allSatisfy { found(cache, $0.key) == nil })
        // A page beyond the capacity.
        let small = ReadCache(capacity: 12)
        #expect(small.insert(page: page.map { ($0, nil) }, readAt: small.generation) == .stored)
        #expect(
            small.insert(
                page: [(record(key("q1")), nil), (record(key("q2")), nil), (record(key("q3")), nil)], readAt: small.generation)
                == .full)
        #expect(small.statistics.entries == 20)
        #expect(page.allSatisfy { small.lookup($0.key, withSettings: true, readAt: small.generation)?.stored == $0 })
    }

    /// One record a user, more users than the cache holds: the users' ids go with their evicted
    /// records, and the cache never empties.
    @Test func moreUsersThanTheCapacityEvictWithoutEmptying() {
        let cache = ReadCache(capacity: 4)
        for index in 0..<100 {
            let user = key("u\(index)")
            cache.insert(user, stored: record(user), settings: .some(nil), readAt: cache.generation)
            #expect(cache.lookup(user, withSettings: true, readAt: cache.generation)?.stored == record(user))
        }
        #expect(cache.statistics.clears == 0 && cache.statistics.evictions == 96)
        #expect(cache.symbolCounts.users == 4)
        #expect((96..<100).allSatisfy { found(cache, key("u\($0)")) != nil })
        #expect((0..<96).allSatisfy { found(cache, key("u\($0)")) == nil })
    }

    @Test func aFullCacheEvictsItsOldestRecords() {
        let cache = ReadCache(capacity: 3)
        for user in ["a", "b", "c", "d"] {
            cache.insert(key(user), stored: record(key(user)), settings: nil, readAt: cache.generation)
        }
        #expect(cache.statistics.entries == 3 && cache.statistics.evictions == 1 && cache.statistics.clears == 0)
        #expect(found(cache, key("a")) == nil)
        #expect(["b", "c", "d"].allSatisfy { found(cache, key($0)) == record(key($0)) })
        // A record stored again in its place takes no room and moves nothing.
        cache.insert(key("b"), stored: record(key("b"), version: 2), settings: nil, readAt: cache.generation)
        #expect(found(cache, key("b")) == record(key("b"), version: 2) && cache.statistics.evictions == 1)
        for user in ["e", "f"] {
            cache.insert(key(user), stored: record(key(user)), settings: nil, readAt: cache.generation)
        }
        #expect(cache.statistics.entries == 3 && cache.statistics.evictions == 3)
        #expect(found(cache, key("b")) == nil && found(cache, key("c")) == nil)
        #expect(["d", "e", "f"].allSatisfy { found(cache, key($0)) != nil })
    }

    /// A key whose record was invalidated keeps its turn in the order; when the turn comes, it
    /// makes room without evicting anything.
    @Test func anInvalidatedRecordsTurnEvictsNothing() {
        let cache = ReadCache(capacity: 3)
        for user in ["a", "b", "c"] {
            cache.insert(key(user), stored: record(key(user)), settings: nil, readAt: cache.generation)
        }
        cache.invalidate(keys: [key("a")], users: [])
        cache.insert(key("a"), stored: record(key("a"), version: 2), settings: nil, readAt: cache.generation)
        #expect(cache.statistics.entries == 3 && cache.statistics.evictions == 0)
        #expect(["a", "b", "c"].allSatisfy { found(cache, key($0)) != nil })
        cache.insert(key("d"), stored: record(key("d")), settings: nil, readAt: cache.generation)
        #expect(cache.statistics.evictions == 1 && found(cache, key("b")) == nil)
        #expect(found(cache, key("a")) == record(key("a"), version: 2))
    }

    /// A record invalidated and read again while the order has room holds two entries of its
    /// key: the older entry's turn removes nothing, and the record is evicted in its new turn,
    /// after the records stored before it.
    @Test func aRecordReadAgainIsEvictedInItsNewTurn() {
        let cache = ReadCache(capacity: 3)
        for user in ["a", "b"] {
            cache.insert(key(user), stored: record(key(user)), settings: nil, readAt: cache.generation)
        }
        cache.invalidate(keys: [key("a")], users: [])
        cache.insert(key("a"), stored: record(key("a"), version: 2), settings: nil, readAt: cache.generation)
        // The order is full (a, b, a): "c" takes the older "a"'s turn, which is not the record's.
        cache.insert(key("c"), stored: record(key("c")), settings: nil, readAt: cache.generation)
        #expect(cache.statistics.entries == 3 && cache.statistics.evictions == 0)
        #expect(found(cache, key("a")) == record(key("a"), version: 2))
        // Then the oldest go in the order they were stored: "b", then the "a" read again.
        cache.insert(key("d"), stored: record(key("d")), settings: nil, readAt: cache.generation)
        #expect(cache.statistics.evictions == 1 && found(cache, key("b")) == nil)
        #expect(["a", "c", "d"].allSatisfy { found(cache, key($0)) != nil })
        cache.insert(key("e"), stored: record(key("e")), settings: nil, readAt: cache.generation)
        #expect(cache.statistics.evictions == 2 && found(cache, key("a")) == nil)
        #expect(["c", "d", "e"].allSatisfy { found(cache, key($0)) != nil })
    }

    /// Random inserts and invalidations over more keys than the cache holds: it never holds more
    /// than its capacity, a key just stored is found, whatever is found is the last version
    /// stored for the key since it was last invalidated, and the records held are exactly those
    /// a first-in, first-out model of the order keeps (a record read again evicted in its new
    /// turn, never its older entry's).
    @Test func evictionKeepsTheCacheBoundedAndExact() {
        let capacity = 8
        let cache = ReadCache(capacity: capacity)
        let keys = (0..<4).flatMap { user in (0..<5).map { key("u\(user)", service: "s\($0)") } }
        var latest: [AuthorizationKey: Int64] = [:]
        // The model: the order's entries, oldest first, each a key and the step that stored it;
        // a record is held while the entry it was stored with is in the order.
        var entries: [(key: AuthorizationKey, step: Int)] = []
        var storedAt: [AuthorizationKey: Int] = [:]
        var generator = SeededGenerator(state: 23)
        for step in 1...5_000 {
            let target = keys[Int(generator.next() % UInt64(keys.count))]
            if generator.next() % 4 == 0 {
                cache.invalidate(keys: [target], users: [])
                latest[target] = nil
                storedAt[target] = nil
            } else {
                let version = Int64(step)
                cache.insert(target, stored: record(target, version: version), settings: nil, readAt: cache.generation)
                latest[target] = version
                #expect(found(cache, target)?.version == version)
                if storedAt[target] == nil {
                    while storedAt.count >= capacity || entries.count >= capacity {
                        let oldest = entries.removeFirst()
                        if storedAt[oldest.key] == oldest.step { storedAt[oldest.key] = nil }
                    }
                    entries.append((target, step))
                    storedAt[target] = step
                }
            }
            let held = keys.filter { key in
                guard let stored = found(cache, key) else { return false }
                #expect(stored.version == latest[key], "\(key) at step \(step)")
                return true
            }
            #expect(held.count <= capacity && cache.statistics.entries == held.count)
            #expect(Set(held) == Set(storedAt.keys), "at step \(step)")
            #expect(cache.symbolCounts.users <= held.count, "a user's id goes with their last record")
        }
        #expect(cache.statistics.evictions > 0 && cache.statistics.clears == 0)
    }

    @Test func theInsertionOrderIsARingThatGrowsToItsCapacity() {
        var order = InsertionOrder(capacity: 4)
        #expect(order.hasRoom(for: 4) && !order.hasRoom(for: 5))
        order.append(1)
        order.append(2)
        #expect(order.removeFirst().key == 1)
        order.append(3)
        order.append(4)
        order.append(5)
        #expect(order.count == 4 && !order.hasRoom(for: 1))
        var taken: [UInt64] = []
        for next in UInt64(6)...13 {
            taken.append(order.removeFirst().key)
            order.append(next)
        }
        #expect(taken == Array(2...9))
        #expect((0..<4).map { _ in order.removeFirst().key } == Array(10...13))
        #expect(order.count == 0 && order.hasRoom(for: 4))
    }

    /// Each key appended is stamped with its place among all keys ever appended, and comes off
    /// the ring with that stamp, also once the stamps wrap around.
    @Test func theInsertionOrderStampsEachKeyWithItsPlace() {
        var order = InsertionOrder(capacity: 3)
        #expect(order.append(7) == 0 && order.append(7) == 1)
        #expect(order.removeFirst() == (key: 7, stamp: 0))
        #expect(order.append(8) == 2 && order.append(9) == 3)
        var stamps: [UInt32] = []
        for next in UInt64(10)..<20 {
            stamps.append(order.removeFirst().stamp)
            stamps.append(order.append(next))
        }
        let expected: [UInt32] = (UInt32(1)...10).flatMap { [$0, $0 + 3] }
        #expect(stamps == expected)
        var wrapping = InsertionOrder(capacity: 2, firstStamp: .max)
        #expect(wrapping.append(1) == .max && wrapping.append(2) == 0)
        #expect(wrapping.removeFirst() == (key: 1, stamp: .max))
        #expect(wrapping.removeFirst() == (key: 2, stamp: 0))
    }
}
