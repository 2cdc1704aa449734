package import Dispatch

/// Marks a serial queue as the owner of some unsynchronized state, so that debug builds can
/// check each access runs there: the queue carries this object under a queue-specific key,
/// which code running on the queue (or on a source or block targeting it) reads back, as GRDB's
/// `SchedulingWatchdog` does. A wrong hop then stops the process with a message naming the
/// owner, instead of racing. Release builds compile the checks away; the mark costs one
/// `setSpecific` when the queue is made.
package final class QueueOwner: Sendable {
    @usableFromInline static let key = DispatchSpecificKey<QueueOwner>()

    /// What owns the queue, for the failure message ("event loop 0").
    @usableFromInline package let name: String
    /// Whether nothing run on the queue may wait for another thread, a lock holder or the
    /// network: an event loop's, where a wait stalls every connection the loop serves.
    @usableFromInline package let forbidsWaiting: Bool

    /// Marks `queue` as owned by this object.
    /// - Parameter forbidsWaiting: true for a queue where nothing may wait (``assertMayWait(_:file:line:)``).
    package init(_ name: String, marking queue: DispatchQueue, forbidsWaiting: Bool = false) {
        self.name = name
        self.forbidsWaiting = forbidsWaiting
        queue.setSpecific(key: Self.key, value: self)
    }

    /// Stops a debug build when the caller runs on a queue whose owner forbids waiting: called
    /// by whatever blocks its thread (a durable write waiting for its commit, a round trip to
    /// a database server, a wait for a revision), so that work sent to an event loop by mistake
    /// is found by the tests rather than as a stall of every connection on that loop.
    /// - Parameter what: the wait, for the message.
    @inlinable @inline(__always) package static func assertMayWait(
        _ what: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line
    ) {
        #if DEBUG
        if let owner = DispatchQueue.getSpecific(key: key), owner.forbidsWaiting {
            preconditionFailure("\(what()) must not wait on \(owner.name)'s queue", file: file, line: line)
        }
        #endif
    }

    /// Whether the caller runs on a queue whose owner forbids waiting (an event loop's), in
    /// release builds too: for code that can do its work another way there, such as a read
    /// that answers from memory or hands itself to a thread that may wait.
    @inlinable package static var forbidsWaitingHere: Bool {
        DispatchQueue.getSpecific(key: key)?.forbidsWaiting == true
    }

    /// Whether the caller runs on the marked queue.
    @inlinable package var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) === self }

    /// Stops a debug build unless the caller runs on the marked queue.
    /// - Parameter what: the state or call being checked, for the message.
    @inlinable @inline(__always) package func assertCurrent(
        _ what: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line
    ) {
        #if DEBUG
        precondition(isCurrent, "\(what()) is owned by \(name)'s queue, but ran elsewhere", file: file, line: line)
        #endif
    }

    /// Stops a debug build when the caller runs on the marked queue.
    @inlinable @inline(__always) package func assertNotCurrent(
        _ what: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line
    ) {
        #if DEBUG
        precondition(!isCurrent, "\(what()) must not run on \(name)'s queue", file: file, line: line)
        #endif
    }
}
