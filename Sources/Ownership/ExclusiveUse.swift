package import Synchronization

/// The debug-build check that an object which is not thread-safe (a SQLite or libpq connection,
/// a curl handle) is used by one thread at a time when it is handed between threads: the pool
/// or queue that lends it calls ``enter()`` and ``leave()`` around each loan, and the object
/// calls ``check()`` where it touches its unsynchronized state. A second thread entering, or a
/// touch from a thread that holds no loan, stops the process with a message instead of
/// corrupting memory. Objects never lent (opened and used by one thread, as a command-line
/// tool does) are not checked until their first loan.
///
/// In release builds it holds nothing and every call compiles away: the checked paths are the
/// benchmarked ones.
package final class ExclusiveUse: Sendable {
    #if DEBUG
    @usableFromInline let mark = ThreadMark()
    @usableFromInline let lent = Atomic<Bool>(false)
    #endif
    @usableFromInline let what: StaticString

    /// - Parameter what: how the object is named in the failure message.
    @inlinable package init(_ what: StaticString) { self.what = what }

    /// The calling thread starts a loan; stops when another thread holds one.
    @inlinable @inline(__always) package func enter() {
        #if DEBUG
        lent.store(true, ordering: .relaxed)
        mark.claim(what)
        #endif
    }

    /// The calling thread ends its loan.
    @inlinable @inline(__always) package func leave() {
        #if DEBUG
        mark.release(what)
        #endif
    }

    /// Runs `body` inside a loan to the calling thread, or inside the loan it already holds
    /// (a queue's block that runs another block of the same queue synchronously).
    @inlinable @inline(__always) package func lend<Result>(_ body: () throws -> Result) rethrows -> Result {
        #if DEBUG
        let held = mark.isCurrentThread
        if !held { enter() }
        defer { if !held { leave() } }
        #endif
        return try body()
    }

    /// Stops when the object was ever lent and the calling thread holds no loan now.
    @inlinable @inline(__always) package func check() {
        #if DEBUG
        if lent.load(ordering: .relaxed) {
            precondition(mark.isCurrentThread, "\(what) is used outside a loan or on another thread")
        }
        #endif
    }
}
