import Foundation
import Synchronization

/// The hot path's records in memory: authorization records by (user, app, service) and user
/// settings by user, each either a copy of the stored row or "no row". The database stays the
/// only durable copy; the cache only saves the lookup (on SQLite a b-tree descent that misses
/// the CPU caches once the table is large, see bench/RESULTS.md; on PostgreSQL a round trip).
///
/// Both stores use it the same way. Filled by readers on a miss and emptied by whatever learns
/// of commits (SQLite: the writer's `ReadCacheTracker`; PostgreSQL: the writer for its own
/// commits and the change-log follower for everyone's), so that a read
/// that starts after a write returned never sees what the write replaced:
/// - the writer, after each commit and before its callers return, first ends the reader pool's
///   older snapshots, then removes every key the transaction changed and moves ``generation``
///   on (one step under the lock);
/// - a reader takes ``generation`` *before* it checks out its connection, and its
///   ``insert(_:stored:settings:readAt:)`` is refused when the generation moved since: the row
///   it read may predate that commit. An insert that lands first is removed by the commit's
///   invalidation, which follows.
///
/// Bounded by ``capacity`` records (and as many users' settings). A new record in a full cache
/// evicts the oldest one stored: a cache sized for the table (the default suits 1,000,000
/// records) never fills, and one that is too small keeps the records last read into it, with
/// a warning at start and a metric (`permission_read_cache_evictions_total`) saying so. The
/// records are kept compactly (``ReadCacheRecords``: users and (app, service) pairs as ids in
/// symbol tables, a record as 32 bytes under one 64-bit key, and its key again in the order of
/// insertion): about 93 bytes a record at 1,000,000 records, the hash table's slack included
/// (bench/RESULTS.md). A user's id goes with their last cached record; the other symbol tables
/// are bounded by the capacity too, and a full one empties the cache
/// (`permission_read_cache_clears_total`).
///
/// "No record" is kept apart, within ``absentCapacity(for:)`` keys (a quarter of the capacity)
/// and as many users' settings read with them: any well-formed key can be asked for, so a
/// client reading made-up user ids could otherwise fill the cache and, by the insert that
/// empties a full cache, evict every real record. A full "no record" part empties only itself.
/// It is keyed by the strings, never by symbols: made-up ids take no place in the records'
/// symbol tables, whose overflow would empty the whole cache.
///
/// The audit log's entries are shown to readers (the event feed, `GET /v1/audit`) only up to
/// ``visibleAuditSeq``, which only ``invalidate(keys:users:apps:publishing:)`` and
/// ``removeAll(publishing:)`` move, in the same step that removes what the entries' transactions
/// changed: a backend that re-reads a key on an event never gets the cached old value.
///
/// Registered apps (their purpose strings, for an authorization's `purposeChanged`, SPEC §11)
/// are kept apart too, by id, within ``absentCapacity(for:)`` apps: a full app part empties only
/// itself. They are removed like records: ``invalidate(keys:users:apps:publishing:)`` with the
/// apps a transaction saved.
///
/// Locking is one `Mutex` (the server's event loops are few, and the critical sections are a
/// few hash lookups: a hit finds the user's id, the pair's id, then the record).
package final class ReadCache: Sendable {
    /// A cached value, or the knowledge that there is none (`value` nil).
    private struct Cached<Value> {
        let value: Value?
    }

    private struct State {
        /// Stored records, and the settings read with them (compact: see ``ReadCacheRecords``).
        var records: ReadCacheRecords
        /// Keys read and found to have no record, and the settings read with them (bounded
        /// apart and kept by their strings, so that made-up ids never take symbols from the
        /// records: see ``ReadCache``).
        var absent: Set<AuthorizationKey> = []
        var absentSettings: [UserID: Cached<UserSettings>] = [:]
        /// Registered apps, and ids read and found unregistered (bounded apart: see ``ReadCache``).
        var apps: [AppID: Cached<App>] = [:]
        var generation: UInt64 = 0
        /// The last audit entry whose transaction's changes are no longer cached.
        var visibleAuditSeq: Int64 = 0
        /// Counted under the lock that the lookup takes anyway: no atomic on the hot path.
        var hits = 0
        var misses = 0
        var clears = 0
        var evictions = 0

        init(capacity: Int) {
            records = ReadCacheRecords(capacity: capacity)
        }

        var count: Int {
            records.records.count + records.settingsCount + absent.count + absentSettings.count + apps.count
        }

        /// Drops every entry (and every symbol), keeping the generation (moved on by `advance`),
        /// the visible audit seq and the counters. Returns the dropped state, to be freed outside
        /// the lock.
        mutating func empty(advance: Bool) -> State {
            var emptied = State(capacity: records.capacity)
            emptied.generation = advance ? generation &+ 1 : generation
            emptied.visibleAuditSeq = visibleAuditSeq
            emptied.hits = hits
            emptied.misses = misses
            emptied.clears = clears &+ 1
            emptied.evictions = evictions
            swap(&self, &emptied)
            return emptied
        }

        /// Stores the record `stored` of `key` (and its user's settings when read), evicting
        /// the oldest record when the records reached `capacity`, and emptying everything first
        /// when a symbol table is full. Returns what was emptied, if anything.
        mutating func store(
            _ key: AuthorizationKey, _ stored: StoredAuthorization, shape: ReadCacheRecords.Shape,
            settings: UserSettings??
        ) -> State? {
            var dropped: State?
            var evicted = records.insert(key, stored, shape: shape, settings: settings)
            if evicted == nil {
                dropped = empty(advance: false)
                evicted = records.insert(key, stored, shape: shape, settings: settings)
                precondition(evicted != nil, "an empty read cache has room for a record")
            }
            evictions &+= evicted ?? 0
            absent.remove(key)
            if settings != nil { absentSettings.removeValue(forKey: key.user) }
            return dropped
        }
    }

    /// Counters for `/metrics`.
    package struct Statistics: Sendable, Equatable {
        package var hits: Int
        package var misses: Int
        /// Entries held now (authorization records and user settings).
        package var entries: Int
        /// Times everything was dropped: a full symbol table, a change of many rows, a
        /// migration, another process's commit.
        package var clears: Int
        /// Records dropped, oldest first, to make room in a full cache for a newly read one.
        package var evictions: Int
    }

    /// The most authorization records held, and separately the most user settings; 0 disables
    /// the cache.
    package let capacity: Int
    private let state: Mutex<State>
    /// `state.generation`, readable without the lock.
    private let published = Atomic<UInt64>(0)

    /// The most "no record" entries kept for a cache of `capacity` records.
    package static func absentCapacity(for capacity: Int) -> Int { max(1, capacity / 4) }

    package init(capacity: Int) {
        self.capacity = max(0, capacity)
        state = Mutex(State(capacity: max(0, capacity)))
    }

    /// The generation a reader passes to ``insert(_:stored:settings:readAt:)``. Take it before
    /// checking out the connection the row will be read on.
    package var generation: UInt64 { published.load(ordering: .acquiring) }

    /// The cached record of `key` and, when `withSettings`, its user's settings; nil when
    /// either is not cached, or when the writer invalidated anything since `generation` was
    /// taken: the caller's read snapshot may then predate what the cache holds, and the other
    /// reads of its body (policies, prompts) come from that snapshot.
    package func lookup(
        _ key: AuthorizationKey, withSettings: Bool, readAt generation: UInt64
    )
        -> (stored: StoredAuthorization?, settings: UserSettings?)?
    {
        typealias Found = (record: (ReadCacheRecords.Record, ReadCacheRecords.Shape)?, settings: UserSettings?)
        let found: Found? = state.withLock { state -> Found? in
            guard state.generation == generation else {
                state.misses &+= 1
                return nil
            }
            let (user, cached) = state.records.find(key)
            let record: (ReadCacheRecords.Record, ReadCacheRecords.Shape)?
            if let cached {
                record = (cached, state.records.shape(of: cached))
            } else if state.absent.contains(key) {
                record = nil
            } else {
                state.misses &+= 1
                return nil
            }
            let settings: UserSettings??
            if !withSettings {
                settings = .some(nil)
            } else if let user, let cached = state.records.settings(ofUser: user, key.user) {
                settings = cached
            } else {
                settings = state.absentSettings[key.user].map(\.value)
            }
            guard let settings else {
                state.misses &+= 1
                return nil
            }
            state.hits &+= 1
            return (record, settings)
        }
        guard let found else { return nil }
        return (found.record.map { ReadCacheRecords.stored(key, $0.0, $0.1) }, found.settings)
    }

    /// Whether a status read of `key` finds what it needs in memory: the record (or "no
    /// record"), its user's settings when `withSettings`, and, for a grant with a purpose, its
    /// app (the read tells whether the purpose changed since). Counts neither a hit nor a miss.
    /// For deciding where a read runs: a lookup right after may still miss.
    package func contains(_ key: AuthorizationKey, withSettings: Bool) -> Bool {
        state.withLock { state in
            let (user, record) = state.records.find(key)
            if let record {
                if state.records.isGrantWithPurpose(record), state.apps[key.app] == nil { return false }
            } else if !state.absent.contains(key) {
                return false
            }
            guard withSettings else { return true }
            if let user, state.records.hasSettings(ofUser: user) { return true }
            return state.absentSettings[key.user] != nil
        }
    }

    /// The cached registration of app `id`: `.some(nil)` when it is known to be unregistered,
    /// nil when not cached or when the writer invalidated anything since `generation` was taken
    /// (as ``lookup(_:withSettings:readAt:)``).
    package func lookupApp(_ id: AppID, readAt generation: UInt64) -> App?? {
        state.withLock { state -> App?? in
            guard state.generation == generation, let cached = state.apps[id] else { return nil }
            return .some(cached.value)
        }
    }

    /// Stores what a reader found for app `id` (nil: not registered), unless the writer
    /// committed a change since `generation` was taken. A full app part is emptied first.
    package func insertApp(_ id: AppID, app: App?, readAt generation: UInt64) {
        guard capacity > 0 else { return }
        let limit = Self.absentCapacity(for: capacity)
        let dropped = state.withLock { state -> [AppID: Cached<App>]? in
            guard state.generation == generation else { return nil }
            var dropped: [AppID: Cached<App>]?
            if state.apps.count >= limit {
                dropped = state.apps
                state.apps = [:]
            }
            state.apps[id] = Cached(value: app)
            return dropped
        }
        withExtendedLifetime(dropped) {}  // freed here, outside the lock
    }

    /// Stores what a reader found for `key` (and its user's settings, when read), unless the
    /// writer committed a change since `generation` was taken.
    package func insert(
        _ key: AuthorizationKey, stored: StoredAuthorization?, settings: UserSettings??, readAt generation: UInt64
    ) {
        guard capacity > 0 else { return }
        let shape = stored.map(ReadCacheRecords.Shape.init)
        let absentCapacity = Self.absentCapacity(for: capacity)
        let dropped = state.withLock { state -> Any? in
            guard state.generation == generation else { return nil }  // the rows may predate a commit
            // Removing entries needs no new generation.
            guard let stored, let shape else {
                var dropped: (Set<AuthorizationKey>, [UserID: Cached<UserSettings>])?
                if state.absent.count >= absentCapacity || state.absentSettings.count >= absentCapacity {
                    dropped = (state.absent, state.absentSettings)  // only "no record": see ReadCache
                    state.absent = []
                    state.absentSettings = [:]
                }
                state.absent.insert(key)
                if let settings, !state.records.hasSettings(key.user) {
                    state.absentSettings[key.user] = Cached(value: settings)
                }
                return dropped
            }
            return state.store(key, stored, shape: shape, settings: settings)
        }
        withExtendedLifetime(dropped) {}  // freed here, outside the lock
    }

    /// Makes room for `records` records and as many users' settings without rehashing (the
    /// warm-up, which knows the table's size: growing a table of 1,000,000 entries briefly
    /// holds the old and the new one).
    package func reserve(records: Int) {
        let records = min(max(0, records), capacity)
        state.withLock { state in
            state.records.reserve(records: records)
        }
    }

    /// What ``insert(page:readAt:)`` did.
    package enum PageOutcome {
        /// Every record (and its user's settings) is in the cache.
        case stored
        /// Nothing was stored: the writer committed a change since the generation was taken.
        case stale
        /// Nothing was stored: the page does not fit in what is left of the capacity.
        case full
    }

    /// Stores a page of records read together with their users' settings (the warm-up), unless
    /// the writer committed a change since `generation` was taken or the page does not fit.
    package func insert(page: [(stored: StoredAuthorization, settings: UserSettings?)], readAt generation: UInt64) -> PageOutcome
    {
        let shapes = page.map { ReadCacheRecords.Shape($0.stored) }
        return state.withLock { state in
            guard state.generation == generation else { return .stale }
            guard state.records.hasRoom(for: page.count) else { return .full }
            for (entry, shape) in zip(page, shapes) {
                let stored = entry.stored
                let key = AuthorizationKey(user: stored.user, app: stored.app, service: stored.service)
                let evicted = state.records.insert(key, stored, shape: shape, settings: .some(entry.settings))
                assert(evicted == 0, "hasRoom(for:) said the page fits")
                state.absent.remove(key)
                state.absentSettings.removeValue(forKey: key.user)
            }
            return .stored
        }
    }

    /// Removes `keys`, the settings of `users` and the apps `apps`, moving the generation on when there are any,
    /// and then shows the audit log up to `auditSeq` (never back; 0 shows nothing new). The
    /// writer calls it after each commit, before the commit's callers return, with the last
    /// entry that commit wrote.
    package func invalidate(
        keys: [AuthorizationKey], users: [UserID], apps: [AppID] = [], publishing auditSeq: Int64 = 0
    ) {
        state.withLock { state in
            if !keys.isEmpty || !users.isEmpty || !apps.isEmpty {
                for app in apps { state.apps.removeValue(forKey: app) }
                for key in keys {
                    state.records.remove(key)
                    state.absent.remove(key)
                }
                for user in users {
                    state.records.removeSettings(user)
                    state.absentSettings.removeValue(forKey: user)
                }
                state.generation &+= 1
                published.store(state.generation, ordering: .releasing)
            }
            state.visibleAuditSeq = max(state.visibleAuditSeq, auditSeq)
        }
    }

    /// Drops every entry and moves the generation on, then shows the audit log up to
    /// `auditSeq` (never back).
    package func removeAll(publishing auditSeq: Int64) {
        let dropped = state.withLock { state in
            let dropped = state.empty(advance: true)
            published.store(state.generation, ordering: .releasing)
            state.visibleAuditSeq = max(state.visibleAuditSeq, auditSeq)
            return dropped
        }
        withExtendedLifetime(dropped) {}  // freed here, outside the lock
    }

    /// Drops every entry and moves the generation on, then shows the audit log up to
    /// `auditSeq`, back too: the one way back, for a log whose newest entries are gone (deleted,
    /// or the database restored under a running replica), whose seqs are to be read again.
    package func reset(publishing auditSeq: Int64) {
        let dropped = state.withLock { state in
            let dropped = state.empty(advance: true)
            published.store(state.generation, ordering: .releasing)
            state.visibleAuditSeq = auditSeq
            return dropped
        }
        withExtendedLifetime(dropped) {}  // freed here, outside the lock
    }

    /// The ids the records' symbol tables gave out since the cache was last emptied (tests).
    var symbolCounts: (users: Int, appServices: Int, shapes: Int, settingsShapes: Int) {
        state.withLock { $0.records.symbolCounts }
    }

    /// The last audit entry readers may see: every change of its transaction (and of those
    /// before) has left the cache.
    package var visibleAuditSeq: Int64 { state.withLock { $0.visibleAuditSeq } }

    package var statistics: Statistics {
        state.withLock {
            Statistics(hits: $0.hits, misses: $0.misses, entries: $0.count, clears: $0.clears, evictions: $0.evictions)
        }
    }
}
