/// State that only the holder of one lock can reach, with waiting for it to change: the
/// pattern of a pool or a wake-up signal (a condition variable and the fields it guards), with
/// the guard made a type instead of a comment. Timed waits run on the monotonic clock
/// (``MonotonicCondition``), so a step of the wall clock neither ends nor stretches them.
///
/// The state is stored here and handed out only inside ``withLock(_:)``, so code that forgets
/// the lock does not compile. `Synchronization.Mutex` does the same for state nobody waits on;
/// this type adds ``Access/wait(until:)`` and ``Access/broadcast()``.
///
/// `@unchecked Sendable`: every read and write of `state` happens between `condition.lock()`
/// and `condition.unlock()` in ``withLock(_:)``, the only way to it. In debug builds the
/// holder's thread is recorded, so taking the lock again on the thread that holds it (a
/// deadlock, the lock not being recursive) stops with a message instead of hanging.
/// As with `Mutex`, a non-`Sendable` value taken out of the state must be moved, not shared.
package final class Guarded<State>: @unchecked Sendable {
    @usableFromInline let condition = MonotonicCondition()
    #if DEBUG
    @usableFromInline var state: State
    #else
    /// Reached only through ``withLock(_:)``, so the lock keeps accesses from other threads
    /// apart, and debug builds keep the runtime's check that one thread's accesses never overlap.
    /// Release builds skip it (`@exclusivity(unchecked)`): it costs a thread-local access-set
    /// insert and removal on every read and write of the state, which the reader pool makes
    /// twice on every status read.
    @exclusivity(unchecked) @usableFromInline var state: State
    #endif
    #if DEBUG
    @usableFromInline let holder = ThreadMark()
    #endif

    /// - Parameter state: the initial state.
    package init(_ state: State) {
        self.state = state
    }

    /// What the body of ``withLock(_:)`` gets: the state, and the condition to wait on or signal.
    package struct Access: ~Copyable {
        @usableFromInline let owner: Guarded<State>

        @inlinable init(owner: Guarded<State>) { self.owner = owner }

        /// The guarded state.
        @inlinable package var state: State {
            _read { yield owner.state }
            nonmutating _modify { yield &owner.state }
        }

        /// Releases the lock until signalled or `deadline` passes, then takes it again.
        /// - Returns: `false` when the deadline passed.
        @inlinable package func wait(until deadline: ContinuousClock.Instant) -> Bool {
            #if DEBUG
            owner.holder.release()
            defer { owner.holder.claim() }
            #endif
            return owner.condition.wait(until: deadline)
        }

        /// Releases the lock until signalled, then takes it again.
        @inlinable package func wait() {
            #if DEBUG
            owner.holder.release()
            defer { owner.holder.claim() }
            #endif
            owner.condition.wait()
        }

        /// Wakes every waiter.
        @inlinable package func broadcast() { owner.condition.broadcast() }

        /// Wakes one waiter.
        @inlinable package func signal() { owner.condition.signal() }
    }

    /// Runs `body` holding the lock.
    @inlinable package func withLock<Result, Failure: Error>(
        _ body: (borrowing Access) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        #if DEBUG
        precondition(!holder.isCurrentThread, "Guarded.withLock entered again on the thread that holds it")
        #endif
        condition.lock()
        #if DEBUG
        holder.claim()
        #endif
        defer {
            #if DEBUG
            holder.release()
            #endif
            condition.unlock()
        }
        return try body(Access(owner: self))
    }
}
