internal import Ownership

extension ReaderPool {
    /// A reader checked out of the pool, inside a read transaction that stays open across calls
    /// and threads until ``close()``: one snapshot for a read that outlives one call (a
    /// streamed export). Between calls no thread holds a loan of the connection (``Database/use``),
    /// so the next call may come from another thread; calls never overlap (each holds the
    /// lease's lock). Released without ``close()``, it closes itself, so the reader always
    /// returns to the pool.
    ///
    /// `Sendable` as checked by the compiler: the connection lives in a ``Guarded`` cell.
    package final class Lease: Sendable {
        private let pool: ReaderPool
        /// The pool's generation at the checkout, for the checkin.
        private let generation: UInt64
        /// nil once closed.
        private let database: Guarded<Database?>

        fileprivate init(pool: ReaderPool, database: Database, generation: UInt64) {
            self.pool = pool
            self.generation = generation
            self.database = Guarded(database)
        }

        /// Runs `body` on the lease's snapshot, inside a loan of its connection to the calling thread.
        /// - Parameter body: reads; like ``ReaderPool/read(_:)``'s, it must leave the read
        ///   transaction open.
        /// - Throws: `SQLITE_MISUSE` once the lease is closed; the body's error.
        package func read<Result>(_ body: (Database) throws -> Result) throws -> Result {
            try database.withLock { (access) throws -> Result in
                guard let database = access.state else { throw SQLiteError.misuse("the read snapshot was closed") }
                database.use.enter()
                defer { database.use.leave() }
                let result = try body(database)
                precondition(database.isInTransaction, Database.endedTransaction("a snapshot's read"))
                return result
            }
        }

        /// Ends the read transaction and returns the reader to the pool; later reads throw. A
        /// second call does nothing.
        package func close() {
            let taken = database.withLock { access -> Database? in
                defer { access.state = nil }
                return access.state
            }
            guard let taken else { return }
            taken.use.enter()  // the checkin ends the loan
            taken.rollbackIgnoringErrors()  // a read: nothing to undo, and no old snapshot kept while idle
            pool.checkin(taken, generation: generation, snapshotStarted: 0)
        }

        deinit {
            close()
        }
    }

    /// Checks out a reader and begins a read transaction on it that lasts until the lease is
    /// closed. Like ``readLatest(keepingSnapshot:_:)``, never on a reused snapshot: it sees every
    /// commit made before the call, by this process or another.
    /// - Throws: `SQLITE_BUSY` when no reader became free within the busy timeout; the error
    ///   of the `BEGIN`.
    package func lease() throws -> Lease {
        let (database, generation, _) = try checkout()
        do {
            if database.isInTransaction { database.rollbackIgnoringErrors() }  // a read: nothing to undo
            try beginRead(database)
        } catch {
            checkin(database, generation: generation, snapshotStarted: 0)
            throw error
        }
        database.use.leave()  // the lease lends it again for each call
        return Lease(pool: self, database: database, generation: generation)
    }
}
