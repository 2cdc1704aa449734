import Dispatch
import Foundation
internal import Ownership
import Synchronization

/// The one connection that writes, owned by one serial `DispatchQueue` (STYLE 10), with group
/// commit.
///
/// Concurrent ``write(_:)`` calls are queued. The queue takes every queued body (at most
/// ``DatabaseConfiguration/maximumBatchSize``), opens one `BEGIN IMMEDIATE`, runs each body in
/// its own `SAVEPOINT`, and commits once, so a batch costs one WAL fsync
/// (https://www.sqlite.org/wal.html, `synchronous=FULL`). A body that throws is rolled back to
/// its savepoint and gets its error; the others proceed. If the commit fails, every body of the
/// batch gets that error. Callers block until their batch is durable.
///
/// A ``CommitObserver`` (the store's read cache) can be told what each committed transaction
/// changed, before its callers return; commits by other processes are noticed within
/// ``foreignCommitCheckInterval`` (`PRAGMA data_version`, https://www.sqlite.org/pragma.html#pragma_data_version).
///
/// `Sendable` as checked by the compiler: the connection and what goes with it belong to
/// `queue` (``QueueOwned``, checked in debug builds), each block on `queue` holds the
/// connection's loan (``Database/use``), and the queue of jobs and the counters live in a `Mutex`.
package final class DatabaseWriter: Sendable {
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

    /// One queued body: ``write(_:)``'s, whose caller blocks on its semaphore until the writer
    /// signals it, or ``submit(_:completion:)``'s, whose completion the writer calls. A blocking caller's
    /// closure refers to its stack, which stays alive because the caller waits; the writer drops
    /// the closure before signalling, as `withoutActuallyEscaping` requires.
    ///
    /// `@unchecked Sendable`: handed over, never shared. The caller fills it before ``enqueue(_:)``
    /// and reads it only after its semaphore's wait (or in its completion, which the writer calls); the
    /// queue writes it only before it signals or completes, and the semaphore (or the call) orders
    /// the two.
    private final class Job: @unchecked Sendable {
        /// Who gets the outcome.
        enum Waiter {
            /// ``write(_:)``'s caller, blocked on the semaphore.
            case blocked(DispatchSemaphore)
            /// ``submit(_:completion:)``'s completion, called with the failure or nil.
            case completion(@Sendable ((any Error)?) -> Void)
        }

        var run: ((Database) throws -> Void)?
        var failure: (any Error)?
        let waiter: Waiter

        init(run: @escaping (Database) throws -> Void, waiter: Waiter) {
            self.run = run
            self.waiter = waiter
        }

        /// Hands the outcome back: wakes the blocked caller, or calls the completion.
        func finish() {
            run = nil
            switch waiter {
            case .blocked(let done): done.signal()
            case .completion(let completion): completion(failure)
            }
        }
    }

    /// What a submitted body produced, kept for its completion. `@unchecked Sendable`: written
    /// by the body and read by the completion, both on the writer's queue, one after the other.
    private final class Produced<Value>: @unchecked Sendable {
        var value: Value?
    }

    /// How often the writer looks for commits made by another process while an observer is
    /// attached (100 ms, the reader pool's ``ReaderPool/maximumSnapshotAge``).
    static let foreignCommitCheckInterval: DispatchTimeInterval = .milliseconds(100)

    /// What only blocks on the writer queue touch.
    private final class QueueState {
        let database: Database
        /// Registered on `database` from init until close.
        let walHook: WALHook
        var observer: (any CommitObserver)?
        var savepointState: (any SavepointState)?
        var foreignCommitTimer: (any DispatchSourceTimer)?
        /// `PRAGMA data_version` at the last check: it changes only when another connection commits.
        var dataVersion: Int64 = 0
        init(database: Database, walHook: WALHook) {
            self.database = database
            self.walHook = walHook
        }
    }

    /// The queued jobs and the counters, shared by callers and the queue.
    private struct Shared {
        var pending: [Job] = []
        var draining = false
        var closed = false
        var statistics = Statistics()
    }

    private let queueState: QueueOwned<QueueState>
    private let queue: DispatchQueue
    /// The mark of `queue`, which ``close()`` reads to know when it runs there.
    private let owner: QueueOwner
    private let maximumBatchSize: Int
    private let onCommit: @Sendable () -> Void
    private let shared = Mutex(Shared())
    /// Transaction durations and batch sizes, for metrics.
    package let metrics = WriteMetrics()
    /// Checkpoints the WAL off this writer's thread.
    let checkpointer: Checkpointer

    /// Opens the writer connection (WAL, `synchronous=FULL`).
    /// - Parameters:
    ///   - path: the database file, created when missing.
    ///   - configuration: pragmas and the batch cap.
    ///   - onCommit: called on the writer queue after every commit, before the callers return
    ///     (the reader pool ends snapshots that predate it).
    package init(path: String, configuration: DatabaseConfiguration, onCommit: @escaping @Sendable () -> Void = {}) throws {
        let queue = DispatchQueue(label: "SQLiteStore.writer")
        let owner = QueueOwner("the SQLite writer", marking: queue)
        let database = try Database(path: path, mode: .readWrite, configuration: configuration)  // switches to WAL
        let checkpointer = try Checkpointer(path: path, configuration: configuration)
        let walHook = WALHook(checkpointer: checkpointer)
        walHook.register(on: database)  // not yet shared: no loan needed
        self.checkpointer = checkpointer
        self.queueState = QueueOwned(QueueState(database: database, walHook: walHook), owner: owner)
        self.owner = owner
        self.queue = queue
        self.maximumBatchSize = configuration.maximumBatchSize
        self.onCommit = onCommit
        self.configuredBusyTimeout = configuration.busyTimeoutMilliseconds
        checkpointer.truncateThroughWriter { [weak self] busyTimeout, completion in
            guard let self else { return completion(false) }
            self.truncateCheckpoint(busyTimeoutMilliseconds: busyTimeout, completion: completion)
        }
    }

    private let configuredBusyTimeout: Int32

    /// A `TRUNCATE` checkpoint on this writer's own connection, on its queue between batches,
    /// waiting `busyTimeoutMilliseconds` at most for readers of older snapshots; `completion`
    /// (on this queue) says whether the WAL was emptied. The checkpointer's scrub after an
    /// erasure comes here: done on another connection, the log it reset read to this one as
    /// another process's commit (`data_version` changed), and the observer then lost track and
    /// the read cache was emptied at every erasure. A checkpoint commits nothing, so the
    /// observer is not told. The pool's idle readers end their snapshots first, as at a commit:
    /// one idle on the newest snapshot still holds a read lock the truncation waits for, so
    /// only a reader in use (an export, a backup) puts a scrub off.
    func truncateCheckpoint(busyTimeoutMilliseconds: Int32, completion: @escaping @Sendable (Bool) -> Void) {
        queue.async {
            guard !self.shared.withLock({ $0.closed }) else { return completion(false) }
            self.onCommit()
            let emptied = self.onQueue {
                (try? self.database.truncateWAL(
                    busyTimeoutMilliseconds: busyTimeoutMilliseconds, restoring: self.configuredBusyTimeout)) ?? false
            }
            completion(emptied)
        }
    }

    /// A snapshot of the counters.
    package var currentStatistics: Statistics {
        shared.withLock { $0.statistics }
    }

    /// The number of bodies queued and not yet taken into a batch.
    package var pendingCount: Int {
        shared.withLock { $0.pending.count }
    }

    // MARK: Owned by the queue

    /// The queue's state; debug builds stop when this is reached from anywhere but `queue`.
    private var owned: QueueState { queueState.value }

    private var database: Database { owned.database }

    private var observer: (any CommitObserver)? {
        get { owned.observer }
        set { owned.observer = newValue }
    }

    private var savepointState: (any SavepointState)? {
        get { owned.savepointState }
        set { owned.savepointState = newValue }
    }

    private var foreignCommitTimer: (any DispatchSourceTimer)? {
        get { owned.foreignCommitTimer }
        set { owned.foreignCommitTimer = newValue }
    }

    private var dataVersion: Int64 {
        get { owned.dataVersion }
        set { owned.dataVersion = newValue }
    }

    /// Runs `body`, a block on `queue`, holding the connection's loan.
    private func onQueue<Result>(_ body: () throws -> Result) rethrows -> Result {
        try owned.database.use.lend(body)
    }

    /// Attaches `observer`: from now on it is told about every transaction this writer commits
    /// and about every change it cannot see (bodies run outside a transaction, failed commits,
    /// commits by other processes, checked every ``foreignCommitCheckInterval`` and after each
    /// commit).
    /// - Throws: `SQLiteError` when the data version cannot be read, or the observer's
    ///   ``CommitObserver/didAttach(_:)`` error.
    package func attach(_ observer: some CommitObserver) throws {
        try queue.sync {
            try onQueue {
                dataVersion = try readDataVersion()
                try observer.didAttach(database)
                self.observer = observer
                let timer = DispatchSource.makeTimerSource(queue: queue)
                let interval = Self.foreignCommitCheckInterval
                timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
                timer.setEventHandler { [weak self] in
                    guard let self else { return }
                    self.onQueue { self.checkForeignCommits() }
                }
                timer.resume()
                foreignCommitTimer = timer
            }
        }
    }

    /// Makes `state` follow this writer's bodies (``SavepointState``): told before each body,
    /// when its savepoint is rolled back, and whenever the file may have changed unseen (a
    /// whole transaction lost, a failed `COMMIT`, a body run outside a transaction, and, while
    /// an observer is attached, a commit by another process).
    package func track(_ state: some SavepointState) {
        queue.sync { savepointState = state }
    }

    deinit {
        let state = queueState.valueAtTeardown  // the last reference: no block of `queue` runs
        state.foreignCommitTimer?.cancel()
        state.walHook.unregister(from: state.database)
    }

    /// Runs `body` in a durable write transaction shared with concurrent callers.
    ///
    /// `body` runs on the writer queue inside its own savepoint; it must not begin or end
    /// transactions (a body that ends its batch's transaction stops the process). Returns once
    /// the batch holding it is committed.
    /// - Parameter body: the mutation; its error rolls back only its own changes.
    /// - Throws: the body's error, or the batch's `BEGIN`/`COMMIT` error.
    package func write<Result>(_ body: (Database) throws -> Result) throws -> Result {
        assert(!owner.isCurrent, "a write waited for on the writer's own queue never starts (a completion must not write)")
        QueueOwner.assertMayWait("a durable write waiting for its commit")
        return try withoutActuallyEscaping(body) { body in
            var result: Result?
            let done = DispatchSemaphore(value: 0)
            let job = Job(run: { database in result = try body(database) }, waiter: .blocked(done))
            enqueue(job)
            done.wait()
            if let failure = job.failure { throw failure }
            guard let result else {
                throw SQLiteError.misuse("write body produced no result")
            }
            return result
        }
    }

    /// Runs `body` in a durable write transaction shared with concurrent callers, like
    /// ``write(_:)``, without a thread waiting for it: `completion` gets its result once the
    /// batch holding it is committed (or its error), on the writer's queue, after the observer
    /// saw the commit, where ``write(_:)``'s caller would have been woken. It runs before the
    /// next batch starts, so it must be quick and must not wait for anything (another write
    /// would never start: debug builds stop).
    /// - Parameters:
    ///   - body: the mutation, in its own savepoint; its error rolls back only its own changes.
    ///   - completion: the body's result, or its error or the batch's `BEGIN`/`COMMIT` error.
    package func submit<Result: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> Result,
        completion: @escaping @Sendable (Swift.Result<Result, any Error>) -> Void
    ) {
        let produced = Produced<Result>()
        let job = Job(
            run: { database in produced.value = try body(database) },
            waiter: .completion { failure in
                if let failure {
                    completion(.failure(failure))
                } else if let value = produced.value {
                    completion(.success(value))
                } else {
                    completion(.failure(SQLiteError.misuse("write body produced no result")))
                }
            })
        enqueue(job)
    }

    /// Runs `body` on the writer queue between batches, outside any transaction (migrations,
    /// maintenance). `body` manages its own transactions.
    package func writeWithoutTransaction<Result>(_ body: (Database) throws -> Result) rethrows -> Result {
        QueueOwner.assertMayWait("work waiting for the SQLite writer")
        return try queue.sync {
            let isClosed = shared.withLock { $0.closed }
            precondition(!isClosed, "writeWithoutTransaction after close()")
            return try onQueue {
                defer {
                    onCommit()  // whatever the body committed must be visible to later reads
                    observer?.didLoseTrack(database)  // and was not seen by the observer
                    savepointState?.forget()  // the body may have changed anything (migrations)
                }
                return try body(database)
            }
        }
    }

    /// Closes the writer connection once the batches already queued are committed; later
    /// writes fail. Part of a clean stop (``DatabasePool/close()``): close the readers first, so
    /// that this, the last connection, removes the `-wal` and `-shm` files. Called on the writer
    /// queue itself (a pool released by a block running there), it closes at once instead of
    /// waiting for the queue it is on.
    package func close() {
        shared.withLock { $0.closed = true }
        if owner.isCurrent {
            closeOnQueue()
        } else {
            queue.sync { closeOnQueue() }  // behind any drain already scheduled
        }
    }

    private func closeOnQueue() {
        onQueue {
            foreignCommitTimer?.cancel()
            foreignCommitTimer = nil
            observer = nil
            savepointState = nil
            owned.walHook.unregister(from: database)
            checkpointer.close()  // first: the last connection to close checkpoints and removes the WAL
            database.close()
        }
    }

    /// Tells the observer when another process committed since the last check. On `queue` only.
    private func checkForeignCommits() {
        guard let observer else { return }
        let version: Int64
        do {
            version = try readDataVersion()
        } catch {
            savepointState?.forget()
            observer.didLoseTrack(database)  // cannot tell: assume the worst
            return
        }
        guard version != dataVersion else { return }
        dataVersion = version
        savepointState?.otherProcessCommitted(database)
        onCommit()  // readers drop snapshots older than that commit first (see ReaderPool)
        observer.didLoseTrack(database)
    }

    /// Each body's savepoint, run for every write.
    private static let savepoint = StatementSlot("SAVEPOINT batch_item")
    private static let release = StatementSlot("RELEASE batch_item")
    private static let rollbackToSavepoint = StatementSlot("ROLLBACK TO batch_item")
    private static let pragmaDataVersion = StatementSlot("PRAGMA data_version")

    private func readDataVersion() throws -> Int64 {
        try database.withStatement(Self.pragmaDataVersion) { statement in
            try statement.step() ? statement.int64(at: 0) : 0
        }
    }

    private func enqueue(_ job: Job) {
        let start: Bool? = shared.withLock { shared in
            if shared.closed { return nil }
            shared.pending.append(job)
            defer { shared.draining = true }
            return !shared.draining
        }
        guard let start else {
            job.failure = SQLiteError.misuse("the database is closed")
            job.finish()
            return
        }
        if start { queue.async { self.onQueue { self.drain() } } }
    }

    /// Runs batches until the queue is empty. On `queue` only.
    private func drain() {
        while true {
            let batch: [Job]? = shared.withLock { shared in
                if shared.pending.isEmpty {
                    shared.draining = false
                    return nil
                }
                if shared.pending.count <= maximumBatchSize {
                    defer { shared.pending.removeAll(keepingCapacity: true) }
                    return shared.pending
                }
                defer { shared.pending.removeFirst(maximumBatchSize) }
                return Array(shared.pending.prefix(maximumBatchSize))
            }
            guard let batch else { return }
            run(batch)
        }
    }

    /// One group commit. On `queue` only.
    private func run(_ batch: [Job]) {
        let started = DispatchTime.now().uptimeNanoseconds
        var completed: [Job] = []  // ran and released their savepoint; await the commit
        var failed: [Job] = []
        for (index, job) in batch.enumerated() {
            if !database.isInTransaction {
                do {
                    try database.begin(.immediate)
                } catch {
                    // The lock another process holds (or whatever refused it) would refuse the
                    // rest again, each after its own busy timeout: they fail with this one now.
                    for waiting in batch[index...] { waiting.failure = error }
                    failed += batch[index...]
                    break
                }
            }
            savepointState?.bodyWillRun()
            do {
                try database.withStatement(Self.savepoint) { try $0.execute() }
            } catch {
                job.failure = error
                failed.append(job)
                continue
            }
            do {
                try job.run?(database)
                // A body that committed or rolled back the batch would have the bodies before it
                // answered wrongly: failed though committed, or committed though rolled back.
                precondition(database.isInTransaction, Database.endedTransaction("a write body"))
                try database.withStatement(Self.release) { try $0.execute() }
                completed.append(job)
            } catch {
                job.failure = error
                failed.append(job)
                savepointState?.bodyDidRollBack()  // what it wrote is undone with it
                if !undoSavepoint() {
                    savepointState?.forget()
                    // SQLite rolled back the whole transaction (https://www.sqlite.org/lang_transaction.html#response_to_errors_within_a_transaction):
                    // the bodies that completed before are lost with it.
                    for lost in completed { lost.failure = error }
                    failed += completed
                    completed.removeAll()
                }
            }
        }
        var commitFailure: (any Error)?
        var committed = false
        if database.isInTransaction {
            do {
                try observer?.willCommit(database)
                try database.commit()
                committed = true
            } catch {
                commitFailure = error
                database.rollbackIgnoringErrors()
                savepointState?.forget()
                // The outcome of a failed COMMIT is not certain: readers drop their snapshots
                // (see ReaderPool), then the observer forgets everything.
                onCommit()
                observer?.didLoseTrack(database)
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
        // After the readers' snapshots were ended (see ReaderPool) and before the callers return.
        if committed {
            // Another process's commit just before this one would otherwise be covered by this
            // one (an observer showing this commit's audit entries shows theirs too).
            checkForeignCommits()
            savepointState?.didCommit()
            observer?.didCommit(database)
        }
        shared.withLock { shared in
            if !completed.isEmpty {
                shared.statistics.commits += 1
                shared.statistics.committedWrites += completed.count
                shared.statistics.largestBatch = max(shared.statistics.largestBatch, completed.count)
            }
            shared.statistics.failedWrites += failed.count
        }
        for job in batch { job.finish() }
    }

    /// Rolls back to and releases the current body's savepoint. Returns false when the
    /// transaction is gone (SQLite rolled it back) or the savepoint cannot be undone, in which
    /// case the transaction is rolled back entirely.
    private func undoSavepoint() -> Bool {
        guard database.isInTransaction else { return false }
        do {
            try database.withStatement(Self.rollbackToSavepoint) { try $0.execute() }
            try database.withStatement(Self.release) { try $0.execute() }
            return true
        } catch {
            database.rollbackIgnoringErrors()
            return false
        }
    }
}

/// Sees what the writer's transactions change, on the writer queue: how a read model in memory
/// (the store's read cache) stays in step with the file.
package protocol CommitObserver: AnyObject {
    /// On ``DatabaseWriter/attach(_:)``, outside any transaction: load what the observer keeps
    /// from the file. Throwing fails the attach.
    func didAttach(_ database: Database) throws
    /// Inside the transaction, just before `COMMIT`: collect what it changed. Throwing rolls the
    /// whole batch back, and every body in it gets the error.
    func willCommit(_ database: Database) throws
    /// The `COMMIT` after ``willCommit(_:)`` succeeded; the reader pool has already ended the
    /// snapshots that predate it, and no caller of the batch has returned yet.
    func didCommit(_ database: Database)
    /// The file may have changed in a way the observer did not see: a body run outside a
    /// transaction (migrations, maintenance), a `COMMIT` that failed, a commit by another
    /// process. Forget everything.
    func didLoseTrack(_ database: Database)
}
