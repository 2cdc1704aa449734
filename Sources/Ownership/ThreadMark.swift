public import Synchronization

#if canImport(Glibc)
public import Glibc
#endif

/// Which thread, if any, currently owns something: the debug-build record behind
/// ``Guarded`` and ``ExclusiveUse``. The owner is the thread's `pthread_self()`, 0 when none.
@usableFromInline
package final class ThreadMark: Sendable {
    @usableFromInline let owner = Atomic<UInt>(0)

    @inlinable package init() {}

    /// The calling thread's identity (never 0).
    @inlinable package static var current: UInt { UInt(pthread_self()) }

    /// Whether the calling thread is the owner.
    @inlinable package var isCurrentThread: Bool { owner.load(ordering: .relaxed) == Self.current }

    /// Makes the calling thread the owner; stops when another thread is.
    @inlinable package func claim(_ what: StaticString = "the object") {
        let (exchanged, found) = owner.compareExchange(
            expected: 0, desired: Self.current, successOrdering: .acquiring, failureOrdering: .relaxed)
        precondition(exchanged || found == Self.current, "\(what) is in use on another thread")
    }

    /// Gives up ownership; stops when the calling thread is not the owner.
    @inlinable package func release(_ what: StaticString = "the object") {
        let (exchanged, _) = owner.compareExchange(
            expected: Self.current, desired: 0, successOrdering: .releasing, failureOrdering: .relaxed)
        precondition(exchanged, "\(what) is released by a thread that does not use it")
    }
}
