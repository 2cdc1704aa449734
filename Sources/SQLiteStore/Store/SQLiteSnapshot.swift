import PermissionDomain

/// A read snapshot of ``SQLitePermissionStore/openSnapshot()``: a leased reader
/// (``ReaderPool/Lease``) whose read transaction lasts until ``close()``, read through the same
/// sessions as ``SQLitePermissionStore/read(_:)``.
final class SQLiteSnapshot: PermissionSnapshot {
    private let lease: ReaderPool.Lease
    private let shared: StoreSession.Shared
    /// ``ReadCache/generation`` taken before the reader was checked out.
    private let cacheGeneration: UInt64

    init(lease: ReaderPool.Lease, shared: StoreSession.Shared, cacheGeneration: UInt64) {
        self.lease = lease
        self.shared = shared
        self.cacheGeneration = cacheGeneration
    }

    /// - Throws: the body's error; ``PermissionError/unavailable(why:cause:)`` once closed, or
    ///   when a lock stayed held for the busy timeout; other `SQLiteError`s.
    func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T {
        do {
            return try lease.read { database in
                try body(StoreSession(database: database, shared: shared, cacheGeneration: cacheGeneration))
            }
        } catch let error as SQLiteError where error.isBusy || error.isMisuse {
            throw PermissionError.unavailable(why: error.message)
        }
    }

    func close() {
        lease.close()
    }
}
