internal import CSQLite

extension Database {
    /// `PRAGMA wal_checkpoint(TRUNCATE)`: copies all of the WAL back into the file and truncates
    /// it to nothing. Whether it completed; it does not when the writer's lock or a reader of an
    /// older snapshot stayed in the way for `busyTimeoutMilliseconds` (the connection's own
    /// busy timeout when nil, which is restored afterwards otherwise).
    func truncateWAL(busyTimeoutMilliseconds: Int32? = nil, restoring configured: Int32 = 0) throws -> Bool {
        if let busyTimeoutMilliseconds { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        defer { if busyTimeoutMilliseconds != nil { sqlite3_busy_timeout(handle, configured) } }
        // One row: whether it could not complete (1), the WAL's frames, the frames copied back.
        return try withStatement("PRAGMA wal_checkpoint(TRUNCATE)") { try $0.step() ? $0.int64(at: 0) : 1 } == 0
    }
}
