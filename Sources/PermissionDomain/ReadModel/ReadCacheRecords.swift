import Foundation

/// The read cache's stored records and their users' settings, about 93 bytes a record at
/// 1,000,000 records (see bench/RESULTS.md): users and (app, service) pairs get dense ids in
/// symbol tables, so a key is one `UInt64` (user 32 bits, pair 32); the fields that repeat
/// across records (status, reason, flags, level, purpose and its language, declined levels) are
/// one id into a table of their distinct combinations, so a record is that id and three
/// integers (32 bytes, no heap object). A hit rebuilds the `StoredAuthorization` with the
/// request's own key strings. A hit costs three small hash lookups: the user, the pair (one hash
/// of both strings), the record.
///
/// The records are bounded by the capacity: a new record in a full cache evicts the oldest one
/// stored (``InsertionOrder``, 8 bytes a record), so a table larger than the cache keeps the
/// records last read into it. A user's id is given back with their last cached record, so
/// there are never more users than records, however many users the table has. The pairs and
/// the field combinations are bounded by the capacity too, and stay until the cache empties:
/// when one of those tables is full, an insert fails and the owner empties everything. Only
/// keys that have a record get symbols: the owner keeps "no record" apart, by strings.
///
/// Not thread-safe: ``ReadCache`` holds it under its lock.
struct ReadCacheRecords {
    /// A record without its key: times as milliseconds (`Int64.min`: none), the id of its
    /// other fields in ``shapes``, and the stamp ``InsertionOrder/append(_:)`` gave its key when
    /// the record was stored (in the 4 bytes the three integers would leave as padding).
    struct Record {
        let expiresAt: Int64
        let updatedAt: Int64
        let version: Int64
        let shape: UInt32
        let stamp: UInt32
    }

    /// The fields of a record that repeat across records, in the order of `StoredAuthorization`.
    struct Shape: Hashable {
        let status: AuthorizationStatus
        let reason: Reason
        let provisional: Bool
        let once: Bool
        let buttonConfirmed: Bool
        let level: Level?
        let purpose: PurposeString?
        let purposeLanguage: LanguageTag?
        let purposeKey: String?
        let declinedLevels: [Level]

        init(_ stored: StoredAuthorization) {
            status = stored.status
            reason = stored.reason
            provisional = stored.provisional
            once = stored.once
            buttonConfirmed = stored.buttonConfirmed
            level = stored.level
            purpose = stored.purpose
            purposeLanguage = stored.purposeLanguage
            purposeKey = stored.purposeKey
            declinedLevels = stored.declinedLevels
        }
    }

    /// A user's settings without the user and with the time as milliseconds.
    struct SettingsShape: Hashable {
        let locationServicesEnabled: Bool
        let locale: LanguageTag?
    }

    /// What is cached of a user: their settings' `shape`, ``notCached``, ``noSettings`` (the
    /// user never changed them) or `n + 2` for `settingsShapes[n]`, changed at `updatedAt`; and
    /// how many of their records are cached (16 bytes in all).
    struct Settings {
        var updatedAt: Int64
        var shape: UInt32
        var records: UInt32 = 0

        static let notCached: UInt32 = 0
        static let noSettings: UInt32 = 1
    }

    /// An app and a service: the second half of a record's key.
    struct AppService: Hashable {
        let app: AppID
        let service: ServiceID
    }

    /// The most records held.
    let capacity: Int
    /// Records by ``key(user:appService:)``.
    private(set) var records: [UInt64: Record] = [:]
    /// The users of the cached records: a user's id is given back with their last record
    /// (and their settings with it), so there are never more users than records once an
    /// insert is done.
    private var users: SymbolTable<UserID>
    private var appServices: SymbolTable<AppService>
    private var shapes: SymbolTable<Shape>
    private var settingsShapes: SymbolTable<SettingsShape>
    /// By user id; grows with ``users``.
    private var settings: [Settings] = []
    /// Users whose settings are cached.
    private(set) var settingsCount = 0
    /// The keys of ``records`` in the order they were stored, to evict the oldest.
    private var order: InsertionOrder

    init(capacity: Int) {
        // Users, pairs and the order's stamps are 32-bit.
        precondition(capacity < Int(UInt32.max), "a read cache holds fewer than 2^32 - 1 records")
        self.capacity = max(0, capacity)
        // One more than the records: a new record's user gets an id before the eviction
        // that makes room for the record.
        users = SymbolTable(limit: self.capacity + 1, keepsValues: true)
        appServices = SymbolTable(limit: capacity, keepsValues: false)
        shapes = SymbolTable(limit: capacity, keepsValues: true)
        settingsShapes = SymbolTable(limit: min(capacity, Int(UInt32.max) - 2), keepsValues: true)
        order = InsertionOrder(capacity: self.capacity)
    }

    @inline(__always)
    static func key(user: UInt32, appService: UInt32) -> UInt64 { UInt64(user) << 32 | UInt64(appService) }

    /// The id of `key`'s user (nil when it has none) and `key`'s record (nil when not cached).
    @inline(__always)
    func find(_ key: AuthorizationKey) -> (user: UInt32?, record: Record?) {
        guard let user = users.id(of: key.user) else { return (nil, nil) }
        guard let appService = appServices.id(of: AppService(app: key.app, service: key.service)) else { return (user, nil) }
        return (user, records[Self.key(user: user, appService: appService)])
    }

    /// The fields of `record` other than its times and version.
    @inline(__always)
    func shape(of record: Record) -> Shape { shapes[record.shape] }

    /// The cached settings of the user with id `user`: nil when not cached, `.some(nil)` when
    /// the user has none.
    @inline(__always)
    func settings(ofUser user: UInt32, _ id: UserID) -> UserSettings?? {
        let cached = settings[Int(user)]
        switch cached.shape {
        case Settings.notCached: return nil
        case Settings.noSettings: return .some(nil)
        default:
            let shape = settingsShapes[cached.shape - 2]
            return UserSettings(
                user: id, locationServicesEnabled: shape.locationServicesEnabled, locale: shape.locale,
                updatedAt: cached.updatedAt == .min ? nil : Date(millisecondsSince1970: cached.updatedAt))
        }
    }

    /// Whether the settings of the user with id `user` are cached.
    @inline(__always)
    func hasSettings(ofUser user: UInt32) -> Bool { settings[Int(user)].shape != Settings.notCached }

    /// Whether the settings of `user` are cached.
    func hasSettings(_ user: UserID) -> Bool {
        guard let id = users.id(of: user) else { return false }
        return hasSettings(ofUser: id)
    }

    /// Whether `record` is a grant with a purpose (whose read needs its app, for
    /// `purposeChanged`).
    @inline(__always)
    func isGrantWithPurpose(_ record: Record) -> Bool {
        let shape = shapes[record.shape]
        return shape.status == .authorized && shape.purpose != nil
    }

    /// Whether `more` records of new users, pairs and field combinations fit without
    /// evicting or emptying (the warm-up's pages, stored whole or not at all).
    func hasRoom(for more: Int) -> Bool {
        records.count + more <= capacity && order.hasRoom(for: more) && users.hasRoom(for: more)
            && appServices.hasRoom(for: more) && shapes.hasRoom(for: more) && settingsShapes.hasRoom(for: more)
    }

    /// Stores `stored` (its fields `shape`) under `key` and, when not nil, its user's
    /// settings. A new record in a full cache first evicts the oldest (see ``InsertionOrder``).
    /// Returns the records evicted, or nil when a symbol table is full: the caller empties this
    /// and retries (a user id given meanwhile is given back; pair and field-combination ids
    /// stay until the emptying; no record or settings changed).
    mutating func insert(
        _ key: AuthorizationKey, _ stored: StoredAuthorization, shape: Shape, settings userSettings: UserSettings??
    ) -> Int? {
        precondition(capacity > 0, "a cache of no records stores none")
        var newSettings = Settings(updatedAt: .min, shape: Settings.noSettings)
        guard let user = users.intern(key.user) else { return nil }
        if Int(user) == settings.count { settings.append(Settings(updatedAt: .min, shape: Settings.notCached)) }
        guard let appService = appServices.intern(AppService(app: key.app, service: key.service)),
            let shapeID = shapes.intern(shape)
        else {
            releaseIfUnused(user)
            return nil
        }
        if case .some(.some(let value)) = userSettings {
            guard
                let id = settingsShapes.intern(
                    SettingsShape(locationServicesEnabled: value.locationServicesEnabled, locale: value.locale))
            else {
                releaseIfUnused(user)
                return nil
            }
            newSettings = Settings(updatedAt: value.updatedAt?.millisecondsSince1970 ?? .min, shape: id + 2)
        }
        let recordKey = Self.key(user: user, appService: appService)
        var evicted = 0
        let stamp: UInt32
        if let cached = records[recordKey] {
            stamp = cached.stamp  // stored again in its place: it keeps its turn
        } else {
            // Counted first, so that no eviction gives back this user's id, then room made.
            settings[Int(user)].records += 1
            evicted = makeRoomForOneMore()
            stamp = order.append(recordKey)
        }
        records[recordKey] = Record(
            expiresAt: stored.expiresAt?.millisecondsSince1970 ?? .min,
            updatedAt: stored.updatedAt?.millisecondsSince1970 ?? .min, version: stored.version, shape: shapeID,
            stamp: stamp)
        if userSettings != nil {
            if settings[Int(user)].shape == Settings.notCached { settingsCount += 1 }
            newSettings.records = settings[Int(user)].records
            settings[Int(user)] = newSettings
        }
        return evicted
    }

    /// Takes the oldest keys off ``order`` until one more record and its key fit, removing
    /// the records they were appended for. Returns how many it removed.
    ///
    /// Ends because every cached record's key is in ``order`` under the record's stamp (a record
    /// is stored with its key appended, and leaves ``records`` whenever that entry leaves
    /// ``order``): while ``records`` is full, ``order`` is not empty. ``order`` may hold more
    /// keys than there are records: a key whose record was invalidated stays until its turn,
    /// and when the record is read again its key is appended again. That older entry's turn
    /// removes nothing (its stamp is not the record's), so a record read again is evicted in
    /// its new turn; a cache whose writes invalidate much may hold fewer records than the
    /// capacity, never more.
    private mutating func makeRoomForOneMore() -> Int {
        var evicted = 0
        while records.count >= capacity || !order.hasRoom(for: 1) {
            let oldest = order.removeFirst()
            if removeRecord(oldest.key, stamped: oldest.stamp) { evicted += 1 }
        }
        return evicted
    }

    /// Removes the record under `recordKey`, if cached (and, given a `stamp`, only if stored
    /// under it), and gives back its user's id when it was the user's last. Returns whether it
    /// removed one.
    private mutating func removeRecord(_ recordKey: UInt64, stamped stamp: UInt32? = nil) -> Bool {
        guard let cached = records[recordKey], stamp == nil || cached.stamp == stamp else { return false }
        records[recordKey] = nil
        let user = UInt32(truncatingIfNeeded: recordKey >> 32)
        precondition(settings[Int(user)].records > 0, "a cached record counts for its user")
        settings[Int(user)].records -= 1
        releaseIfUnused(user)
        return true
    }

    /// Gives back the id of `user` (and drops their cached settings) when none of their
    /// records is cached.
    private mutating func releaseIfUnused(_ user: UInt32) {
        guard settings[Int(user)].records == 0 else { return }
        if settings[Int(user)].shape != Settings.notCached { settingsCount -= 1 }
        settings[Int(user)] = Settings(updatedAt: .min, shape: Settings.notCached)
        users.release(user)
    }

    /// Removes the record of `key`, if cached.
    mutating func remove(_ key: AuthorizationKey) {
        guard let user = users.id(of: key.user),
            let appService = appServices.id(of: AppService(app: key.app, service: key.service))
        else { return }
        _ = removeRecord(Self.key(user: user, appService: appService))
    }

    /// Removes the settings of `user`, if cached.
    mutating func removeSettings(_ user: UserID) {
        guard let id = users.id(of: user), settings[Int(id)].shape != Settings.notCached else { return }
        settings[Int(id)].shape = Settings.notCached
        settingsCount -= 1
    }

    /// Makes room for `records` records without rehashing.
    mutating func reserve(records count: Int) {
        records.reserveCapacity(min(max(0, count), capacity))
        order.reserve(keys: min(max(0, count), capacity))
    }

    /// The stored record of `key` from its cached `record` and that record's `shape`.
    @inline(__always)
    static func stored(_ key: AuthorizationKey, _ record: Record, _ shape: Shape) -> StoredAuthorization {
        StoredAuthorization(
            user: key.user, app: key.app, service: key.service, status: shape.status, level: shape.level,
            provisional: shape.provisional, once: shape.once,
            expiresAt: record.expiresAt == .min ? nil : Date(millisecondsSince1970: record.expiresAt),
            reason: shape.reason, purpose: shape.purpose, purposeLanguage: shape.purposeLanguage,
            purposeKey: shape.purposeKey, declinedLevels: shape.declinedLevels, buttonConfirmed: shape.buttonConfirmed,
            updatedAt: record.updatedAt == .min ? nil : Date(millisecondsSince1970: record.updatedAt),
            version: record.version)
    }

    /// The ids given out so far: users, (app, service) pairs, record shapes, settings shapes.
    var symbolCounts: (users: Int, appServices: Int, shapes: Int, settingsShapes: Int) {
        (users.count, appServices.count, shapes.count, settingsShapes.count)
    }
}

/// The keys of a cache's records in the order they were stored, oldest first: a ring of at most
/// `capacity` keys, 8 bytes each. The oldest is what a full cache evicts: first in, first out,
/// so a hit writes nothing (no recency to record under the lock).
///
/// Each key appended gets a stamp, its place in the sequence of all keys ever appended (modulo
/// 2^32), which the key's record keeps: a key appended twice (its record invalidated and read
/// again) then tells its older entry from the one its record is under. The stamps are not
/// stored: the oldest key's is counted at ``headStamp``, the others follow from their places.
/// Two entries of one key are less than `capacity` appends apart, so their stamps differ.
///
/// The storage grows as keys come, so a small table never allocates the whole ring: until it
/// holds `capacity` keys they are `keys[head...]`, in order, and appending appends; from then
/// on the ring wraps.
struct InsertionOrder {
    /// The most keys held.
    let capacity: Int
    private var keys: [UInt64] = []
    /// The index in `keys` of the oldest key.
    private var head = 0
    private(set) var count = 0
    /// The stamp of the oldest key.
    private var headStamp: UInt32

    /// - Parameter firstStamp: the first key's stamp (tests start near the wrap).
    init(capacity: Int, firstStamp: UInt32 = 0) {
        precondition(capacity < Int(UInt32.max), "stamps tell apart the entries of at most 2^32 - 1 keys")
        self.capacity = max(0, capacity)
        headStamp = firstStamp
    }

    /// Whether `more` keys fit.
    func hasRoom(for more: Int) -> Bool { count + more <= capacity }

    /// Appends `key` as the newest, and returns its stamp; there must be room.
    @discardableResult
    mutating func append(_ key: UInt64) -> UInt32 {
        precondition(count < capacity, "an insertion order holds at most its capacity")
        if keys.count < capacity {
            assert(head + count == keys.count, "until the storage is whole its keys run to its end")
            keys.append(key)
        } else {
            keys[(head + count) % capacity] = key
        }
        let stamp = headStamp &+ UInt32(truncatingIfNeeded: count)
        count += 1
        return stamp
    }

    /// Removes and returns the oldest key and its stamp; there must be one.
    mutating func removeFirst() -> (key: UInt64, stamp: UInt32) {
        precondition(count > 0, "every cached record's key is in the insertion order")
        let oldest = (key: keys[head], stamp: headStamp)
        head = (head + 1) % capacity
        headStamp &+= 1
        count -= 1
        return oldest
    }

    /// Makes room for `wanted` keys without growing the storage again.
    mutating func reserve(keys wanted: Int) {
        keys.reserveCapacity(min(max(0, wanted), capacity))
    }
}
