import PermissionDomain

/// A read snapshot of ``SQLitePermissionStore/openSnapshot()``: a leased reader
/// (``ReaderPool/Lease``) whose read transaction lasts until ``close()``, read through sessions
/// without the read cache: what it shows is exactly its snapshot.
final class SQLiteSnapshot: PermissionSnapshot {
    private let lease: ReaderPool.Lease
    /// Without the cache (``SQLitePermissionStore``'s `snapshotShared`).
    private let shared: StoreSession.Shared

    init(lease: ReaderPool.Lease, shared: StoreSession.Shared) {
        self.lease = lease
        self.shared = shared
    }

    /// - Throws: the body's error; ``PermissionError/unavailable(why:cause:)`` once closed, or
    ///   when a lock stayed held for the busy timeout; other `SQLiteError`s.
    func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T {
        do {
            return try lease.read { database in
                try body(StoreSession(database: database, shared: shared))
            }
        } catch let error as SQLiteError where error.isBusy || error.isMisuse {
            throw PermissionError.unavailable(why: error.message)
        }
    }

    func close() {
        lease.close()
    }
}
