import Dispatch
import Foundation

/// The one connection that writes, owned by one serial `DispatchQueue` (STYLE 10), with group
/// commit.
///
/// Concurrent ``write(_:)`` calls are queued. The queue takes every queued body (at most
/// ``DatabaseConfiguration/maximumBatchSize``), opens one `BEGIN IMMEDIATE`, runs each body in
/// its own `SAVEPOINT`, and commits once, so a batch costs one WAL fsync
/// (https://www.sqlite.org/wal.html, `synchronous=FULL`). A body that throws is rolled back to
/// its savepoint and gets its error; the others proceed. If the commit fails, every body of the
/// batch gets that error. Callers block until their batch is durable.
package final class DatabaseWriter: @unchecked Sendable {
    /// Counters for tests and metrics.
    package struct Statistics: Sendable, Equatable {
        /// Bodies that completed and were committed.
        package var committedWrites = 0
        /// Successful `COMMIT`s (each one fsync).
        package var commits = 0
        /// Bodies that threw or whose batch failed.
        package var failedWrites = 0
        /// The largest batch committed together.
        package var largestBatch = 0
    }

    /// One queued body. Its closure refers to the caller's stack, which stays alive because the
    /// caller blocks on `done` until the writer signals it; the writer drops the closure before
    /// signalling, as `withoutActuallyEscaping` requires.
    private final class Job {
        var run: ((Database) throws -> Void)?
        var failure: (any Error)?
        let done = DispatchSemaphore(value: 0)
        init(run: @escaping (Database) throws -> Void) { self.run = run }
    }

    private let database: Database  // touched only on `queue`
    private let queue: DispatchQueue
    private let maximumBatchSize: Int
    private let onCommit: @Sendable () -> Void
    private let lock = NSLock()
    private var pending: [Job] = []  // guarded by lock
    private var draining = false  // guarded by lock
    private var closed = false  // guarded by lock
    private var statistics = Statistics()  // guarded by lock
    /// Transaction durations and batch sizes, for metrics.
    package let metrics = WriteMetrics()

    /// Opens the writer connection (WAL, `synchronous=FULL`).
    /// - Parameters:
    ///   - path: the database file, created when missing.
    ///   - configuration: pragmas and the batch cap.
    ///   - onCommit: called on the writer queue after every commit, before the callers return
    ///     (the reader pool ends snapshots that predate it).
    package init(path: String, configuration: DatabaseConfiguration, onCommit: @escaping @Sendable () -> Void = {}) throws {
        self.database = try Database(path: path, mode: .readWrite, configuration: configuration)
        self.queue = DispatchQueue(label: "SQLiteStore.writer")
        self.maximumBatchSize = configuration.maximumBatchSize
        self.onCommit = onCommit
    }

    /// A snapshot of the counters.
    package var currentStatistics: Statistics {
        lock.lock()
        defer { lock.unlock() }
        return statistics
    }

    /// The number of bodies queued and not yet taken into a batch.
    package var pendingCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return pending.count
    }

    /// Runs `body` in a durable write transaction shared with concurrent callers.
    ///
    /// `body` runs on the writer queue inside its own savepoint; it must not begin or commit
    /// transactions. Returns once the batch holding it is committed.
    /// - Parameter body: the mutation; its error rolls back only its own changes.
    /// - Throws: the body's error, or the batch's `BEGIN`/`COMMIT` error.
    package func write<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try withoutActuallyEscaping(body) { body in
            var result: Result?
            let job = Job { database in result = try body(database) }
            enqueue(job)
            job.done.wait()
            if let failure = job.failure { throw failure }
            guard let result else {
                throw SQLiteError(code: 21, message: "write body produced no result", sql: nil)  // SQLITE_MISUSE
            }
            return result
        }
    }

    /// Runs `body` on the writer queue between batches, outside any transaction (migrations,
    /// maintenance). `body` manages its own transactions.
    package func writeWithoutTransaction<Result>(_ body: (Database) throws -> Result) rethrows -> Result {
        try queue.sync {
            lock.lock()
            let isClosed = closed
            lock.unlock()
            precondition(!isClosed, "writeWithoutTransaction after close()")
            defer {
                onCommit()  // whatever the body committed must be visible to later reads
                database.auditChainTip = nil  // the body may have rewritten the chain (migrations)
            }
            return try body(database)
        }
    }

    /// Closes the writer connection once the batches already queued are committed; later
    /// writes fail. Part of a clean stop (``DatabasePool/close()``): close the readers first, so
    /// that this, the last connection, removes the `-wal` and `-shm` files. Not from inside a
    /// write body (it waits for the writer queue).
    package func close() {
        lock.lock()
        closed = true
        lock.unlock()
        queue.sync { database.close() }  // behind any drain already scheduled
    }

    private func enqueue(_ job: Job) {
        lock.lock()
        if closed {
            lock.unlock()
            job.run = nil
            job.failure = SQLiteError(code: 21, message: "the database is closed", sql: nil)  // SQLITE_MISUSE
            job.done.signal()
            return
        }
        pending.append(job)
        let start = !draining
        draining = true
        lock.unlock()
        if start { queue.async { self.drain() } }
    }

    /// Runs batches until the queue is empty. On `queue` only.
    private func drain() {
        while true {
            lock.lock()
            if pending.isEmpty {
                draining = false
                lock.unlock()
                return
            }
            let batch: [Job]
            if pending.count <= maximumBatchSize {
                batch = pending
                pending.removeAll(keepingCapacity: true)
            } else {
                batch = Array(pending.prefix(maximumBatchSize))
                pending.removeFirst(maximumBatchSize)
            }
            lock.unlock()
            run(batch)
        }
    }

    /// One group commit. On `queue` only.
    private func run(_ batch: [Job]) {
        let started = DispatchTime.now().uptimeNanoseconds
        var completed: [Job] = []  // ran and released their savepoint; await the commit
        var failed: [Job] = []
        for job in batch {
            let tipBefore = database.auditChainTip
            if !database.isInTransaction {
                do {
                    try database.begin(.immediate)
                } catch {
                    job.failure = error
                    failed.append(job)
                    continue
                }
            }
            do {
                try database.withStatement("SAVEPOINT batch_item") { try $0.execute() }
            } catch {
                job.failure = error
                failed.append(job)
                continue
            }
            do {
                try job.run?(database)
                try database.withStatement("RELEASE batch_item") { try $0.execute() }
                completed.append(job)
            } catch {
                job.failure = error
                failed.append(job)
                database.auditChainTip = tipBefore  // its appends are undone with it
                if !undoSavepoint() {
                    database.auditChainTip = nil
                    // SQLite rolled back the whole transaction (https://www.sqlite.org/lang_transaction.html#response_to_errors_within_a_transaction):
                    // the bodies that completed before are lost with it.
                    for lost in completed { lost.failure = error }
                    failed += completed
                    completed.removeAll()
                }
            }
        }
        var commitFailure: (any Error)?
        if database.isInTransaction {
            do {
                try database.commit()
            } catch {
                commitFailure = error
                database.rollbackIgnoringErrors()
                database.auditChainTip = nil
            }
        }
        if let commitFailure {
            for job in completed { job.failure = commitFailure }
            failed += completed
            completed.removeAll()
        }
        if !completed.isEmpty {
            metrics.record(batchSize: completed.count, nanoseconds: DispatchTime.now().uptimeNanoseconds - started)
            onCommit()
        }
        lock.lock()
        if !completed.isEmpty {
            statistics.commits += 1
            statistics.committedWrites += completed.count
            statistics.largestBatch = max(statistics.largestBatch, completed.count)
        }
        statistics.failedWrites += failed.count
        lock.unlock()
        for job in batch {
            job.run = nil
            job.done.signal()
        }
    }

    /// Rolls back to and releases the current body's savepoint. Returns false when the
    /// transaction is gone (SQLite rolled it back) or the savepoint cannot be undone, in which
    /// case the transaction is rolled back entirely.
    private func undoSavepoint() -> Bool {
        guard database.isInTransaction else { return false }
        do {
            try database.withStatement("ROLLBACK TO batch_item") { try $0.execute() }
            try database.withStatement("RELEASE batch_item") { try $0.execute() }
            return true
        } catch {
            database.rollbackIgnoringErrors()
            return false
        }
    }
}
