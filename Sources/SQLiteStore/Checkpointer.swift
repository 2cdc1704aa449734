internal import CSQLite
import Dispatch
internal import Ownership
import Synchronization

/// Copies the WAL back into the database file (a checkpoint, https://www.sqlite.org/wal.html#ckpt)
/// on a connection and a thread of its own, so that the writer never does it in a commit.
///
/// SQLite's default runs a checkpoint inside the `COMMIT` that takes the WAL past 1,000 pages:
/// that commit copies every page back into the file and syncs the file before its callers
/// return, and every write queued behind it waits as long (the p99 of durable writes). Here
/// the writer's WAL hook (`sqlite3_wal_hook`, which replaces the automatic checkpoint) asks for
/// a checkpoint when the WAL reaches ``DatabaseConfiguration/checkpointPages``, and this
/// connection runs a `PASSIVE` one meanwhile: it never blocks the writer or a reader, and the
/// writer restarts the WAL from its beginning once a checkpoint completed.
///
/// So that the WAL stays bounded even when this falls behind, the writer checkpoints in the
/// commit itself, as SQLite would, once the WAL reaches ``writerFallbackFactor`` times the
/// threshold (``Statistics/writerCheckpoints``). If this thread's own checkpoint holds the
/// checkpoint lock then, the writer's attempt is refused (`SQLITE_BUSY`): the writer waits for
/// that checkpoint to end and tries once more, so that the WAL never grows past the fallback
/// bound by more than the commit that crossed it (a thread descheduled mid-copy would
/// otherwise let it grow without bound). A passive checkpoint never waits for the writer, so
/// the wait cannot deadlock.
package final class Checkpointer: Sendable {
    /// Counters for tests and metrics.
    package struct Statistics: Sendable, Equatable {
        /// Checkpoints run here.
        package var checkpoints = 0
        /// Checkpoints that failed (`SQLITE_BUSY` included: another process held the lock).
        package var failures = 0
        /// Checkpoints the writer ran in a commit because the WAL outgrew the fallback bound
        /// (not counting attempts refused while this thread was checkpointing).
        package var writerCheckpoints = 0
        /// WAL pages after the last commit.
        package var walPages = 0
        /// WAL scrubs (``scrubWAL()``) that emptied the WAL.
        package var scrubs = 0
        /// Scrub attempts that found the writer or an older reader in the way, and were tried again later.
        package var scrubRetries = 0
        /// When the first attempt of the scrub still to be done was put off; nil when none waits.
        /// The erased rows are in the WAL's older frames until then.
        package var scrubWaitingSince: ContinuousClock.Instant?

        /// How long the waiting scrub has waited at `now`; zero when none waits.
        package func scrubWaiting(at now: ContinuousClock.Instant = .now) -> Duration {
            scrubWaitingSince.map { now - $0 } ?? .zero
        }
    }

    /// The WAL size, in multiples of the threshold, at which the writer stops waiting for this
    /// thread and checkpoints in its own commit.
    static let writerFallbackFactor = 2

    let threshold: Int
    private let queue = DispatchQueue(label: "SQLiteStore.checkpointer")
    private let connection: QueueOwned<Database>
    /// A checkpoint is queued and has not started: later requests join it.
    private let requested = Atomic(false)
    /// Holds the queue (tests: a checkpointer that falls behind).
    private let held = Atomic(false)
    private let counters = Mutex(Statistics())
    /// A scrub attempt is queued and has not started: later requests join it.
    private let scrubPending = Atomic(false)
    /// A scrub is wanted once the writer's transaction commits (``scrubAfterCommit()``).
    private let scrubAtCommit = Atomic(false)
    /// Closed: a scrub retry scheduled before must not touch the connection.
    private let closed = Atomic(false)
    /// Runs a scrub's `TRUNCATE` checkpoint on the writer's connection
    /// (``DatabaseWriter/truncateCheckpoint(busyTimeoutMilliseconds:completion:)``); set once,
    /// by the writer that owns this checkpointer, right after it is made.
    private let truncation = Mutex<(@Sendable (Int32, @escaping @Sendable (Bool) -> Void) -> Void)?>(nil)

    /// Where the scrub's checkpoint runs: `truncate(busyTimeout, completion)`. Called once.
    func truncateThroughWriter(_ truncate: @escaping @Sendable (Int32, @escaping @Sendable (Bool) -> Void) -> Void) {
        truncation.withLock { current in
            precondition(current == nil, "a checkpointer's scrub runs through one writer, set once")
            current = truncate
        }
    }
    /// How long a scrub attempt waits for the writer or readers of older snapshots (it holds
    /// up the writer meanwhile), and the delays between attempts.
    static let scrubBusyTimeoutMilliseconds: Int32 = 100
    static let scrubRetryDelays: [Double] = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30]

    /// Opens the checkpointer's own read-write connection to `path`, which the writer has
    /// already opened in WAL mode.
    init(path: String, configuration: DatabaseConfiguration) throws {
        threshold = configuration.checkpointPages
        let owner = QueueOwner("the SQLite checkpointer", marking: queue)
        connection = QueueOwned(try Database(path: path, mode: .readWrite, configuration: configuration), owner: owner)
    }

    var statistics: Statistics { counters.withLock { $0 } }

    /// Called by the writer's WAL hook after each commit, on the writer's thread, with the
    /// pages now in the WAL. Returns whether the writer must checkpoint itself, now.
    func walGrew(to pages: Int) -> Bool {
        if scrubAtCommit.load(ordering: .relaxed), scrubAtCommit.exchange(false, ordering: .acquiringAndReleasing) {
            scrubWAL()
        }
        let fallback = pages >= threshold * Self.writerFallbackFactor
        counters.withLock { $0.walPages = pages }
        if fallback { return true }
        if pages >= threshold, !held.load(ordering: .relaxed),
            requested.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        {
            queue.async { self.run() }
        }
        return false
    }

    /// The writer's own checkpoint (after ``walGrew(to:)`` said so) returned `code`.
    func writerCheckpointed(_ code: Int32) {
        guard code == SQLITE_OK else { return }  // busy: another process is checkpointing
        counters.withLock { $0.writerCheckpoints += 1 }
    }

    /// Returns once no checkpoint of this thread's is queued or running: the writer's fallback,
    /// refused because one holds the checkpoint lock, waits here before trying again. Never
    /// call it on this queue.
    func waitForRunningCheckpoint() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        queue.sync {}
    }

    /// One passive checkpoint. On `queue` only.
    private func run() {
        requested.store(false, ordering: .releasing)
        let database = connection.value
        let succeeded = database.use.lend {
            (try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")) != nil
        }
        counters.withLock {
            if succeeded { $0.checkpoints += 1 } else { $0.failures += 1 }
        }
    }

    /// Empties the WAL soon: a checkpoint that copies all of it back into the file and
    /// truncates it to nothing (`TRUNCATE`), for after an erasure. Deleted rows' pages are zeroed
    /// in the file (`secure_delete`), but the WAL is reused from its start without being cut,
    /// so frames written before the erasure (the user's rows, their wrapped key) would stay in
    /// it past a passive checkpoint, until overwritten or until a clean stop removes it.
    ///
    /// It needs the writer's lock and every reader on the newest snapshot; an attempt waits for
    /// them ``scrubBusyTimeoutMilliseconds`` at most (holding up writes that long), and is tried
    /// again after ``scrubRetryDelays`` until it succeeds (a long export holds an old snapshot).
    /// ``scrubAfterCommit()`` asks for it once the writer's transaction has committed.
    func scrubWAL() {
        guard scrubPending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        queue.async { self.scrub(attempt: 0) }
    }

    /// ``scrubWAL()`` once the writer's current transaction commits (its WAL hook runs after
    /// every commit), so that the attempt does not wait for it, holding the checkpoint lock; a
    /// transaction rolled back leaves the request to the next commit.
    func scrubAfterCommit() {
        scrubAtCommit.store(true, ordering: .releasing)
    }

    /// Whether a scrub is asked for and has not started: at the next commit, or queued.
    var isScrubRequested: Bool {
        scrubAtCommit.load(ordering: .acquiring) || scrubPending.load(ordering: .acquiring)
    }

    /// One scrub attempt, its checkpoint on the writer's connection (``truncateThroughWriter(_:)``:
    /// from this one, the log it reset would read to the writer as another process's commit).
    /// On `queue` only.
    private func scrub(attempt: Int) {
        guard !closed.load(ordering: .acquiring) else { return }
        // Cleared before the attempt: a request made while it runs (a later erasure's commit,
        // whose pages the attempt may have missed) queues an attempt of its own.
        scrubPending.store(false, ordering: .releasing)
        guard let truncate = truncation.withLock({ $0 }) else {
            preconditionFailure("a checkpointer scrubs through its writer, which sets it when it is made")
        }
        truncate(Self.scrubBusyTimeoutMilliseconds) { emptied in
            self.queue.async { self.scrubbed(emptied: emptied, attempt: attempt) }
        }
    }

    /// Counts a scrub attempt's outcome, and schedules the next attempt when it did not empty
    /// the WAL. On `queue` only.
    private func scrubbed(emptied: Bool, attempt: Int) {
        guard !closed.load(ordering: .acquiring) else { return }
        if emptied {
            counters.withLock {
                $0.scrubs += 1
                $0.scrubWaitingSince = nil
            }
            return
        }
        counters.withLock {
            $0.scrubRetries += 1
            if $0.scrubWaitingSince == nil { $0.scrubWaitingSince = .now }
        }
        // Again later, unless a request made meanwhile has queued an attempt already.
        guard scrubPending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        let delay = Self.scrubRetryDelays[min(attempt, Self.scrubRetryDelays.count - 1)]
        queue.asyncAfter(deadline: .now() + delay) { self.scrub(attempt: attempt + 1) }
    }

    /// Tests: while held, no checkpoint starts here (the writer's fallback then bounds the WAL).
    func hold(_ hold: Bool) {
        held.store(hold, ordering: .relaxed)
    }

    /// Waits for a queued checkpoint, then closes the connection; part of the writer's close,
    /// before its own connection closes (the last one checkpoints and removes the WAL).
    func close() {
        closed.store(true, ordering: .releasing)
        queue.sync {
            let database = connection.value
            database.use.lend { database.close() }
        }
    }
}

/// The writer's end of the WAL hook: what `sqlite3_wal_hook` calls after each commit.
final class WALHook {
    let checkpointer: Checkpointer

    init(checkpointer: Checkpointer) {
        self.checkpointer = checkpointer
    }

    /// Registers the hook on the writer's connection (which turns SQLite's automatic checkpoint
    /// off, https://www.sqlite.org/c3ref/wal_hook.html). `self` must outlive the registration:
    /// ``unregister(from:)`` before the connection closes or this is released.
    func register(on database: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            database.handle,
            { context, handle, name, pages in
                guard let context else { return SQLITE_OK }
                let hook = Unmanaged<WALHook>.fromOpaque(context).takeUnretainedValue()
                if hook.checkpointer.walGrew(to: Int(pages)) {
                    // As SQLite's own automatic checkpoint does, in the committing connection;
                    // refused while the checkpointer's thread holds the lock, so once more
                    // after it.
                    var code = sqlite3_wal_checkpoint_v2(handle, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                    if code == SQLITE_BUSY {
                        hook.checkpointer.waitForRunningCheckpoint()
                        code = sqlite3_wal_checkpoint_v2(handle, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                    }
                    hook.checkpointer.writerCheckpointed(code)
                }
                return SQLITE_OK
            }, context)
    }

    /// Removes the hook; nothing to do once the connection is closed.
    func unregister(from database: Database) {
        guard !database.isClosed else { return }
        sqlite3_wal_hook(database.handle, nil, nil)
    }
}
