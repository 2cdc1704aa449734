public import Dispatch

/// A value that only blocks on one serial `DispatchQueue` may touch: a writer's connection
/// state, a timer. Every access goes through ``value``, which in debug builds checks the queue
/// (`dispatchPrecondition`, the check GRDB's `SchedulingWatchdog` makes for its connections), so
/// a hop to the wrong queue stops the process instead of racing the owner. In release builds
/// the access is a plain stored property.
///
/// `@unchecked Sendable`: the value is reached only through ``value``, checked as above.
package final class QueueOwned<Value>: @unchecked Sendable {
    @usableFromInline let queue: DispatchQueue
    @usableFromInline var stored: Value

    /// - Parameters:
    ///   - value: the initial value.
    ///   - queue: the serial queue that owns it.
    package init(_ value: Value, queue: DispatchQueue) {
        self.stored = value
        self.queue = queue
    }

    /// The value; on `queue` only.
    @inlinable package var value: Value {
        _read {
            #if DEBUG
            dispatchPrecondition(condition: .onQueue(queue))
            #endif
            yield stored
        }
        _modify {
            #if DEBUG
            dispatchPrecondition(condition: .onQueue(queue))
            #endif
            yield &stored
        }
    }

    /// The value without the check, for `deinit` of its owner, when no block of the queue can
    /// run any more.
    package var valueAtTeardown: Value { stored }
}
