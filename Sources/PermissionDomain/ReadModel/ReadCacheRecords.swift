import Foundation

/// The read cache's stored records and their users' settings, about 85 bytes a record at
/// 1,000,000 records (see bench/RESULTS.md): users and (app, service) pairs get dense ids in
/// symbol tables, so a key is one `UInt64` (user 32 bits, pair 32); the fields that repeat
/// across records (status, reason, flags, level, purpose and its language, declined levels) are
/// one id into a table of their distinct combinations, so a record is that id and three
/// integers (32 bytes, no heap object). A hit rebuilds the `StoredAuthorization` with the
/// request's own key strings. A hit costs three small hash lookups: the user, the pair (one hash
/// of both strings), the record.
///
/// Every table is bounded by the capacity (users, pairs, field combinations): invalidated
/// records leave their symbols behind until the cache empties. When one is full, an insert
/// fails and the owner empties everything, as it does when the records reach the capacity.
/// Only keys that have a record get symbols: the owner keeps "no record" apart, by strings.
///
/// Not thread-safe: ``ReadCache`` holds it under its lock.
struct ReadCacheRecords {
    /// A record without its key: times as milliseconds (`Int64.min`: none) and the id of its
    /// other fields in ``shapes``.
    struct Record {
        let expiresAt: Int64
        let updatedAt: Int64
        let version: Int64
        let shape: UInt32
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
            declinedLevels = stored.declinedLevels
        }
    }

    /// A user's settings without the user and with the time as milliseconds.
    struct SettingsShape: Hashable {
        let locationServicesEnabled: Bool
        let locale: LanguageTag?
    }

    /// What is cached of a user's settings: ``notCached``, ``noSettings`` (the user never
    /// changed them) or `n + 2` for `settingsShapes[n]`, changed at `updatedAt`.
    struct Settings {
        var updatedAt: Int64
        var shape: UInt32

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
    private var users: SymbolTable<UserID>
    private var appServices: SymbolTable<AppService>
    private var shapes: SymbolTable<Shape>
    private var settingsShapes: SymbolTable<SettingsShape>
    /// By user id; grows with ``users``.
    private var settings: [Settings] = []
    /// Users whose settings are cached.
    private(set) var settingsCount = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        users = SymbolTable(limit: capacity, keepsValues: false)
        appServices = SymbolTable(limit: capacity, keepsValues: false)
        shapes = SymbolTable(limit: capacity, keepsValues: true)
        settingsShapes = SymbolTable(limit: min(capacity, Int(UInt32.max) - 2), keepsValues: true)
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
    /// emptying (the warm-up's pages, stored whole or not at all).
    func hasRoom(for more: Int) -> Bool {
        records.count + more <= capacity && users.hasRoom(for: more) && appServices.hasRoom(for: more)
            && shapes.hasRoom(for: more) && settingsShapes.hasRoom(for: more)
    }

    /// Stores `stored` (its fields `shape`) under `key` and, when not nil, its user's
    /// settings. Returns false when a symbol table is full: the caller empties this and
    /// retries (ids given meanwhile stay until then, but no record or settings changed).
    mutating func insert(
        _ key: AuthorizationKey, _ stored: StoredAuthorization, shape: Shape, settings userSettings: UserSettings??
    ) -> Bool {
        var newSettings = Settings(updatedAt: .min, shape: Settings.noSettings)
        guard let user = users.intern(key.user) else { return false }
        if Int(user) == settings.count { settings.append(Settings(updatedAt: .min, shape: Settings.notCached)) }
        guard let appService = appServices.intern(AppService(app: key.app, service: key.service)),
            let shapeID = shapes.intern(shape)
        else { return false }
        if case .some(.some(let value)) = userSettings {
            guard
                let id = settingsShapes.intern(
                    SettingsShape(locationServicesEnabled: value.locationServicesEnabled, locale: value.locale))
            else { return false }
            newSettings = Settings(updatedAt: value.updatedAt?.millisecondsSince1970 ?? .min, shape: id + 2)
        }
        records[Self.key(user: user, appService: appService)] = Record(
            expiresAt: stored.expiresAt?.millisecondsSince1970 ?? .min,
            updatedAt: stored.updatedAt?.millisecondsSince1970 ?? .min, version: stored.version, shape: shapeID)
        if userSettings != nil {
            if settings[Int(user)].shape == Settings.notCached { settingsCount += 1 }
            settings[Int(user)] = newSettings
        }
        return true
    }

    /// Removes the record of `key`, if cached.
    mutating func remove(_ key: AuthorizationKey) {
        guard let user = users.id(of: key.user),
            let appService = appServices.id(of: AppService(app: key.app, service: key.service))
        else { return }
        records.removeValue(forKey: Self.key(user: user, appService: appService))
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
    }

    /// The stored record of `key` from its cached `record` and that record's `shape`.
    @inline(__always)
    static func stored(_ key: AuthorizationKey, _ record: Record, _ shape: Shape) -> StoredAuthorization {
        StoredAuthorization(
            user: key.user, app: key.app, service: key.service, status: shape.status, level: shape.level,
            provisional: shape.provisional, once: shape.once,
            expiresAt: record.expiresAt == .min ? nil : Date(millisecondsSince1970: record.expiresAt),
            reason: shape.reason, purpose: shape.purpose, purposeLanguage: shape.purposeLanguage,
            declinedLevels: shape.declinedLevels, buttonConfirmed: shape.buttonConfirmed,
            updatedAt: record.updatedAt == .min ? nil : Date(millisecondsSince1970: record.updatedAt),
            version: record.version)
    }

    /// The ids given out so far: users, (app, service) pairs, record shapes, settings shapes.
    var symbolCounts: (users: Int, appServices: Int, shapes: Int, settingsShapes: Int) {
        (users.count, appServices.count, shapes.count, settingsShapes.count)
    }
}
