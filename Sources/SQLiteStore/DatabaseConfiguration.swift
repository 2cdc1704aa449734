/// How connections are opened and how the pool behaves.
///
/// The defaults suit one server process owning one database file: a durable WAL database
/// (https://www.sqlite.org/wal.html) with `synchronous=FULL`, so a write is on disk when it
/// returns.
public struct DatabaseConfiguration: Sendable {
    /// `sqlite3_busy_timeout`: how long a connection waits for a lock held by another
    /// connection or process before failing with `SQLITE_BUSY`.
    public var busyTimeoutMilliseconds: Int32
    /// Page cache per connection, in KiB (`PRAGMA cache_size=-N`).
    public var cacheSizeKiB: Int
    /// `PRAGMA mmap_size` for reader connections (https://www.sqlite.org/mmap.html): address
    /// space, not memory; pages beyond it are read with a system call each. 0 disables it.
    public var mmapSize: Int64
    /// The most read-only connections the pool opens; further readers wait for one.
    public var maximumReaderCount: Int
    /// The most write bodies committed together in one transaction (group commit).
    public var maximumBatchSize: Int
    /// WAL pages after a commit at which the checkpointer copies the WAL back into the
    /// database file, off the writer's thread (``Checkpointer``). 8,000 pages (32 MiB): a page
    /// that many writes change (an index's leaf, the audit log's last page) is copied once per
    /// checkpoint, so the longer the log between checkpoints the fewer copies a write costs;
    /// durable writes took about 12% less CPU each than with SQLite's default of 1,000
    /// (`bench/RESULTS.md`), and beyond 8,000 little changed.
    public var checkpointPages: Int

    /// Creates a configuration.
    /// - Parameters:
    ///   - busyTimeoutMilliseconds: see ``busyTimeoutMilliseconds``.
    ///   - cacheSizeKiB: see ``cacheSizeKiB``.
    ///   - mmapSize: see ``mmapSize``.
    ///   - maximumReaderCount: see ``maximumReaderCount``.
    ///   - maximumBatchSize: see ``maximumBatchSize``.
    ///   - checkpointPages: see ``checkpointPages``.
    public init(
        busyTimeoutMilliseconds: Int32 = 5_000,
        cacheSizeKiB: Int = 8_192,
        mmapSize: Int64 = 1 << 30,
        maximumReaderCount: Int = 8,
        maximumBatchSize: Int = 256,
        checkpointPages: Int = 8_000
    ) {
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.cacheSizeKiB = cacheSizeKiB
        self.mmapSize = mmapSize
        self.maximumReaderCount = max(1, maximumReaderCount)
        self.maximumBatchSize = max(1, maximumBatchSize)
        self.checkpointPages = max(1, checkpointPages)
    }
}
