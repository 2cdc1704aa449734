import AuditKeys
import Dispatch
import Foundation
internal import Ownership
import PermissionDomain
import Synchronization

/// The writes of one ``PostgresPermissionStore`` (one replica), group-committed on one serial
/// `DispatchQueue` (STYLE 10), as SQLite's `DatabaseWriter` does it.
///
/// Concurrent ``write(_:)`` calls are queued. The queue takes every queued body (at most
/// ``maximumBatchSize``), checks a connection out of the store's pool, runs `BEGIN ISOLATION
/// LEVEL READ COMMITTED` (ended by the database when it idles past
/// ``PostgresPermissionStore/idleWriteTimeoutMilliseconds``), locks the audit chain's head row
/// once (`audit_head`, `FOR UPDATE`: batches of every replica take turns), runs each body with a ``PostgresSession`` of its own
/// inside `SAVEPOINT body` ... `RELEASE SAVEPOINT body`
/// (https://www.postgresql.org/docs/15/sql-savepoint.html; the release is sent with the next
/// body's `SAVEPOINT`, and `COMMIT` releases the last), and commits once: one WAL flush
/// and one turn at the head lock for the whole batch (`synchronous_commit` on: durable when
/// `COMMIT` returns). Callers block until their batch is committed.
///
/// The chain tip is not kept in memory: every append reads the head row in the transaction
/// (``PostgresSession/append(_:)``), so a body sees the entries of the bodies before it in its
/// batch, and a body rolled back to its savepoint takes its entries and its move of the head
/// with it.
///
/// Failures:
/// - A body's own error (``PermissionError/conflict(why:)``, a unique violation, a lock wait
///   past the lock timeout on some row) rolls back to its savepoint (`ROLLBACK TO SAVEPOINT`):
///   only that body fails, and nothing it wrote remains.
/// - A serialization failure or deadlock (40001, 40P01) runs the whole batch again (bodies are
///   pure store calls), up to ``PostgresPermissionStore/maximumAttempts`` times.
/// - A connection found broken before `COMMIT` was sent (or a failed connect) is replaced and
///   the batch run once more.
/// - A `COMMIT` on a lost connection may or may not have been applied: every body of the
///   batch gets ``PermissionError/unavailable(why:cause:)``, and the batch is never run again.
/// - A lost database, the head lock held past the lock timeout (55P03) and a pool with no free
///   connection are ``PermissionError/unavailable(why:cause:)`` for every body of the batch.
///
/// Each step is bounded (the pool's checkout timeout, libpq's `connect_timeout`, the
/// connections' `lock_timeout`; a server that went away closes the socket and fails the call
/// at once), so a caller's wait is bounded by the batches ahead of it. A writer that holds the
/// head and stalls (this process or another replica, paused) holds it no longer than the idle
/// timeout, after which the database ends its session.
///
/// One connection per batch comes from the pool rather than one kept by the writer: the pool
/// already bounds how many connections a replica opens (writes never need more than one at a
/// time, so reads keep the others), drops a broken connection at checkin and reconnects on the
/// next checkout, and a connection keeps its prepared statements across checkouts.
///
/// `Sendable` as checked by the compiler: ``onCommit(_:)``'s callback belongs to `queue`
/// (``QueueOwned``, checked in debug builds), the queue of jobs and the counters live in a
/// `Mutex`, and connections are loans of the pool.
package final class PostgresWriter: Sendable {
    /// Counters for tests and metrics.
    package struct Statistics: Sendable, Equatable {
        /// Bodies that completed and were committed.
        package var committedWrites = 0
        /// Successful `COMMIT`s (each one WAL flush).
        package var commits = 0
        /// Bodies that threw or whose batch failed.
        package var failedWrites = 0
        /// The largest batch committed together.
        package var largestBatch = 0
        /// Batches run again after a serialization failure, a deadlock or a broken connection.
        package var retriedBatches = 0
    }

    /// One queued body. Its closure refers to the caller's stack, which stays alive because the
    /// caller blocks on `done` until the writer signals it; the writer drops the closure before
    /// signalling, as `withoutActuallyEscaping` requires.
    ///
    /// `@unchecked Sendable`: handed over, never shared. The caller fills it before ``enqueue(_:)``
    /// and reads it only after `done.wait()`; the queue writes it only before `done.signal()`,
    /// and the semaphore orders the two.
    private final class Job: @unchecked Sendable {
        var run: ((PostgresSession) throws -> Void)?
        var failure: (any Error)?
        let done = DispatchSemaphore(value: 0)
        init(run: @escaping (PostgresSession) throws -> Void) { self.run = run }
    }

    /// The most bodies committed in one transaction.
    package let maximumBatchSize: Int
    /// Whether each body's changes are checked against its audit entries.
    private let checksAuditing: Bool
    private let pool: PostgresConnectionPool
    private let queue: DispatchQueue
    /// Told about every committed batch (``PostgresPermissionStore/didCommit(_:head:)``); set
    /// once by ``onCommit(_:)``.
    private let didCommit: QueueOwned<(([PostgresSession], Int64) -> Void)?>

    /// The queued jobs and the counters, shared by callers and the queue.
    private struct Shared {
        var pending: [Job] = []
        var draining = false
        /// Bodies in the batch being run.
        var running = 0
        var statistics = Statistics()
    }

    private let shared = Mutex(Shared())

    /// - Parameters:
    ///   - pool: where each batch takes its connection.
    ///   - maximumBatchSize: the most bodies in one transaction (at least 1).
    ///   - checksAuditing: refuse a body that changed something no audit entry of its own
    ///     names (``UnauditedChange``): the store serves replicas.
    /// The audit log's per-user keys, for the entries bodies append.
    private let keyring: AuditKeyring?

    init(pool: PostgresConnectionPool, maximumBatchSize: Int, keyring: AuditKeyring?, checksAuditing: Bool = false) {
        self.keyring = keyring
        precondition(maximumBatchSize >= 1, "a batch holds at least one body")
        self.pool = pool
        self.maximumBatchSize = maximumBatchSize
        self.checksAuditing = checksAuditing
        let queue = DispatchQueue(label: "PostgresStore.writer")
        self.queue = queue
        self.didCommit = QueueOwned(nil, owner: QueueOwner("the PostgreSQL writer", marking: queue))
    }

    /// Sets what is called after every successful `COMMIT`, on the writer queue, with the
    /// sessions of the bodies that committed and the chain head's seq when the batch locked it
    /// (every change its bodies could read is at or before it), before any of their callers
    /// returns; the batch's connection is still checked out (outside any transaction) during
    /// the call.
    func onCommit(_ body: @escaping ([PostgresSession], Int64) -> Void) {
        queue.sync { didCommit.value = body }
    }

    /// A snapshot of the counters.
    package var currentStatistics: Statistics {
        shared.withLock { $0.statistics }
    }

    /// The number of bodies queued and not yet taken into a batch.
    package var pendingCount: Int {
        shared.withLock { $0.pending.count }
    }

    /// The number of callers waiting: bodies queued plus those of the batch being run.
    package var waitingCount: Int {
        shared.withLock { $0.pending.count + $0.running }
    }

    /// Runs `body` in a durable write transaction shared with concurrent callers.
    ///
    /// `body` runs on the writer queue inside its own savepoint, and again when its batch is
    /// run again (see the type's summary); it must not begin or end transactions (a body that
    /// ends its batch's transaction stops the process). Returns once the batch holding it is
    /// committed.
    /// - Throws: the body's error (a ``PostgresError`` that means an unreachable database or a
    ///   lock timeout becomes ``PermissionError/unavailable(why:cause:)``), or the batch's.
    func write<Result>(_ body: (PostgresSession) throws -> Result) throws -> Result {
        QueueOwner.assertMayWait("a durable write waiting for its commit")
        return try withoutActuallyEscaping(body) { body in
            var result: Result?
            let job = Job { session in result = try body(session) }
            enqueue(job)
            job.done.wait()
            if let failure = job.failure { throw failure }
            guard let result else {
                throw PostgresError(message: "write body produced no result")
            }
            return result
        }
    }

    private func enqueue(_ job: Job) {
        let start = shared.withLock { shared in
            shared.pending.append(job)
            defer { shared.draining = true }
            return !shared.draining
        }
        if start { queue.async { self.drain() } }
    }

    /// Runs batches until the queue is empty. On `queue` only.
    private func drain() {
        while true {
            let batch: [Job]? = shared.withLock { shared in
                shared.running = 0
                if shared.pending.isEmpty {
                    shared.draining = false
                    return nil
                }
                let batch = Array(shared.pending.prefix(maximumBatchSize))
                shared.pending.removeFirst(batch.count)
                shared.running = batch.count
                return batch
            }
            guard let batch else { return }
            run(batch)
        }
    }

    /// One group commit, attempted again on retryable failures. On `queue` only.
    private func run(_ batch: [Job]) {
        var attempt = 0
        var replacedConnection = false
        var retries = 0
        var committed = 0
        var batchFailure: (any Error)?
        while true {
            attempt += 1
            do {
                committed = try runOnce(batch)
            } catch let error as PostgresError {
                if error.isRetryableTransactionFailure && attempt < PostgresPermissionStore.maximumAttempts {
                    retries += 1
                    continue
                }
                if error.isConnectionFailure && !error.isAnswerTimeout && !replacedConnection {
                    // The broken connection was dropped at checkin; nothing was committed.
                    replacedConnection = true
                    retries += 1
                    continue
                }
                batchFailure = PostgresPermissionStore.mapped(error)
            } catch let error as PostgresCommitOutcomeUnknown {
                batchFailure = PermissionError.unavailable(
                    why: PermissionError.commitOutcomeUnknown, cause: error.underlying.message)
            } catch let error as PostgresPoolTimeout {
                batchFailure = PermissionError.unavailable(why: error.description)
            } catch {
                batchFailure = error
            }
            break
        }
        if let batchFailure {
            for job in batch { job.failure = batchFailure }
        }
        shared.withLock { shared in
            if committed > 0 {
                shared.statistics.commits += 1
                shared.statistics.committedWrites += committed
                shared.statistics.largestBatch = max(shared.statistics.largestBatch, committed)
            }
            shared.statistics.failedWrites += batch.count - committed
            shared.statistics.retriedBatches += retries
        }
        for job in batch {
            job.run = nil
            job.done.signal()
        }
    }

    /// Begins a batch's transaction; a stalled writer's session is ended by the database
    /// (``PostgresPermissionStore/idleWriteTimeoutMilliseconds``,
    /// https://www.postgresql.org/docs/15/runtime-config-client.html#GUC-IDLE-IN-TRANSACTION-SESSION-TIMEOUT).
    static let begin =
        "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL idle_in_transaction_session_timeout = "
        + String(PostgresPermissionStore.idleWriteTimeoutMilliseconds)

    /// One attempt at `batch` in one transaction on one connection; returns how many bodies
    /// committed. A body that threw has its error in its job; a failure of the whole attempt
    /// is thrown (the transaction rolled back, or its outcome unknown).
    private func runOnce(_ batch: [Job]) throws -> Int {
        try pool.withConnection { connection in
            var committed: [PostgresSession] = []
            let head: AuditChainTip
            try connection.execute(Self.begin)
            do {
                head = try PostgresSession(connection: connection).lockAuditChainHead()
                let versionFloor = VersionFloorMemo()  // read under the head's lock, by the first body that needs it
                var savepoint = false  // whether `body` is open (released by the next one or by COMMIT)
                for job in batch {
                    job.failure = nil  // from an earlier attempt
                    // One round trip: the previous body's savepoint is released as this one's is taken.
                    try connection.execute(savepoint ? "RELEASE SAVEPOINT body; SAVEPOINT body" : "SAVEPOINT body")
                    savepoint = true
                    let session = PostgresSession(
                        connection: connection, tracking: checksAuditing ? PostgresChangeTracker() : nil,
                        keyring: keyring, versionFloorMemo: versionFloor)
                    do {
                        try job.run?(session)
                        // A body that committed or rolled back the batch would end it early:
                        // the writes after it would run outside it, without the chain head's
                        // lock, and the batch's COMMIT would pass with a warning.
                        precondition(
                            connection.isInTransaction || !connection.isConnected,
                            PostgresConnection.endedTransaction("a write body"))
                        if let unaudited = session.changes?.unaudited, !unaudited.isEmpty {
                            throw UnauditedChange(changes: unaudited)
                        }
                    } catch let error as PostgresError where error.isRetryableTransactionFailure || error.isConnectionFailure {
                        throw error  // the whole batch: run again, or on a new connection
                    } catch {
                        job.failure = (error as? PostgresError).map(PostgresPermissionStore.mapped) ?? error
                        // Undoes what the body wrote and ends the aborted state a failed
                        // statement left; the (now empty) savepoint stays until released.
                        try connection.execute("ROLLBACK TO SAVEPOINT body")
                        continue
                    }
                    committed.append(session)
                }
            } catch {
                connection.rollbackIgnoringErrors()
                throw error
            }
            try connection.commitOrReportUnknownOutcome()
            if !committed.isEmpty { didCommit.value?(committed, head.seq) }
            return committed.count
        }
    }
}
