import PermissionDomain

extension SQLitePermissionStore {
    /// How a warm-up of the read cache went.
    public struct ReadCacheWarmUp: Sendable, Equatable {
        /// Records put in the cache.
        public var loaded: Int
        /// Records read but not kept, because a write committed meanwhile three times in a row;
        /// the status reads load them when asked.
        public var skipped: Int
        /// The cache reached its capacity before the end of the table.
        public var full: Bool
        /// Stopped by `shouldStop` before the end.
        public var stopped: Bool
    }

    /// Fills the read cache with the stored records, in key order, a page at a time, each with
    /// its user's settings, until the table ends or the cache is full. The server runs it in the
    /// background at start, so that status reads of a large table hit memory from the first
    /// minute instead of after each record was asked for once (with 1,000,000 records and random
    /// reads that takes many minutes). A page read while a write committed is read again (see
    /// ``ReadCache``). The pages are read on the scan connection (``DatabasePool/scan(_:)``),
    /// so the table's file pages do not stay mapped into the process afterwards.
    /// - Parameters:
    ///   - pageSize: records per read snapshot and per cache insert (the lock is held for one page).
    ///   - shouldStop: polled between pages (shutdown).
    ///   - progress: told the records loaded so far after each page.
    /// - Returns: what was loaded; all zero when the cache is off.
    /// - Throws: `SQLiteError` when a page cannot be read (the store was closed, for one).
    @discardableResult
    public func warmReadCache(
        pageSize: Int = 256, shouldStop: () -> Bool = { false }, progress: (_ loaded: Int) -> Void = { _ in }
    ) throws -> ReadCacheWarmUp {
        var result = ReadCacheWarmUp(loaded: 0, skipped: 0, full: false, stopped: false)
        guard let cache = readCache else { return result }
        let pageSize = max(1, pageSize)
        let rows = try pool.scan { database in
            try database.withStatement("SELECT count(*) FROM authorizations") { try $0.step() ? $0.int(at: 0) : 0 }
        }
        cache.reserve(records: rows)
        var after: AuthorizationKey?
        while true {
            if shouldStop() {
                result.stopped = true
                return result
            }
            var page: [(stored: StoredAuthorization, settings: UserSettings?)] = []
            var outcome = ReadCache.PageOutcome.stale
            for _ in 0..<3 where outcome == .stale {
                let generation = cache.generation  // before the checkout: see ReadCache
                page = try pool.scan { database in
                    try StoreSession(database: database).authorizationsWithSettings(after: after, limit: pageSize)
                }
                outcome = cache.insert(page: page, readAt: generation)
            }
            switch outcome {
            case .stored: result.loaded += page.count
            case .stale: result.skipped += page.count
            case .full:
                result.full = true
                return result
            }
            progress(result.loaded)
            guard page.count == pageSize, let last = page.last?.stored else { return result }
            after = AuthorizationKey(user: last.user, app: last.app, service: last.service)
        }
    }
}
