import Foundation

/// A database file served by one writer with group commit and a pool of readers.
///
/// `Sendable`: every connection inside has one owner at a time (the writer queue, or the
/// thread that checked a reader out).
package final class DatabasePool: Sendable {
    /// The database file.
    package let path: String
    package let configuration: DatabaseConfiguration
    /// The single writer.
    package let writer: DatabaseWriter
    /// The read-only connections.
    package let readers: ReaderPool
    /// One read-only connection for reads of a whole table (``scan(_:)``).
    private let scanner: ReaderPool
    /// Read-only connections for snapshots kept open across calls (``snapshot()``).
    package let snapshots: ReaderPool

    /// The page cache of the scan connection, in KiB, at most (``scan(_:)``).
    package static let scanCacheSizeKiB = 2_048

    /// Opens (creating when missing) the database file in WAL mode.
    /// - Parameters:
    ///   - path: the file; its directory must exist.
    ///   - configuration: pragmas, pool and batch sizes.
    package init(path: String, configuration: DatabaseConfiguration = .init()) throws {
        self.path = path
        self.configuration = configuration
        let readers = ReaderPool(path: path, configuration: configuration)
        self.readers = readers
        var scanning = configuration
        scanning.mmapSize = 0
        scanning.cacheSizeKiB = min(configuration.cacheSizeKiB, Self.scanCacheSizeKiB)
        scanning.maximumReaderCount = 1
        scanner = ReaderPool(path: path, configuration: scanning)
        var snapshotting = scanning
        snapshotting.maximumReaderCount = configuration.maximumReaderCount
        snapshots = ReaderPool(path: path, configuration: snapshotting)
        self.writer = try DatabaseWriter(path: path, configuration: configuration, onCommit: readers.didCommit)
    }

    /// Runs `body` on a pooled read-only connection, in a read transaction that sees every
    /// write completed before the call. See ``ReaderPool/read(_:)``.
    @inline(__always)
    package func read<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try readers.read(body)
    }

    /// Runs `body` on a read-only connection kept for reads of a whole table or index (the
    /// read cache's warm-up, the counts of `/metrics`), in a read transaction of its own that
    /// starts now and ends with `body`. The connection maps nothing and has a small page cache
    /// (``scanCacheSizeKiB``): pages a scan reads through the pool's memory-mapped readers would
    /// stay in the process's resident set (as file pages, once per reader that mapped them, and
    /// with the kernel's fault-around also their neighbours) long after the scan. One scan runs
    /// at a time; another waits for it (at most the busy timeout).
    package func scan<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try scanner.readLatest(keepingSnapshot: false, body)  // no snapshot left open between scans
    }

    /// A read snapshot that stays open across calls until the lease is closed (a streamed
    /// export, read a page at a time while a client downloads it), on a connection of its own
    /// outside the pool of ``read(_:)``: however long a client takes, the pool's readers stay
    /// free for every other read. The connections are set up like the scan connection (no
    /// memory map, a small page cache), so what a long read goes through does not stay in the
    /// process's resident set; at most ``DatabaseConfiguration/maximumReaderCount`` are open at
    /// once, and one more waits for a lease to close (at most the busy timeout). See
    /// ``ReaderPool/lease()``.
    package func snapshot() throws -> ReaderPool.Lease {
        try snapshots.lease()
    }

    /// Runs `body` in a group-committed write transaction. See ``DatabaseWriter/write(_:)``.
    package func write<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try writer.write(body)
    }

    /// Closes every connection, the readers first and the writer last, so that SQLite
    /// checkpoints the file and deletes its `-wal` and `-shm` files; later reads and writes
    /// fail with `SQLITE_MISUSE`. For a clean stop, after the last request.
    package func close() {
        scanner.close()
        snapshots.close()
        readers.close()
        writer.close()
    }

    /// Released without ``close()`` (the subcommands): the readers close first and the writer
    /// last, so that SQLite removes the `-wal` and `-shm` files (a read-only connection closing
    /// last would leave them). The writer is closed here rather than by its own release, which
    /// a block still finishing on its queue can delay past the pool's.
    deinit {
        close()
    }

    /// Runs `body` on the writer connection outside any transaction.
    package func writeWithoutTransaction<Result>(_ body: (Database) throws -> Result) rethrows -> Result {
        try writer.writeWithoutTransaction(body)
    }
}
