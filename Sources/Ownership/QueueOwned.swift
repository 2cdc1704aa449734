/// A value that only blocks on one serial `DispatchQueue` may touch: a writer's connection
/// state, a timer. Every access goes through ``value``, which in debug builds checks the queue
/// through its ``QueueOwner`` mark, so a hop to the wrong queue stops the process with a message
/// naming the owner instead of racing it. In release builds the access is a plain stored property.
///
/// `@unchecked Sendable`: the value is reached only through ``value``, checked as above.
package final class QueueOwned<Value>: @unchecked Sendable {
    @usableFromInline let owner: QueueOwner
    @usableFromInline var stored: Value

    /// - Parameters:
    ///   - value: the initial value.
    ///   - owner: the mark of the serial queue that owns it.
    package init(_ value: Value, owner: QueueOwner) {
        self.stored = value
        self.owner = owner
    }

    /// The value; on `queue` only.
    @inlinable package var value: Value {
        _read {
            owner.assertCurrent("this state")
            yield stored
        }
        _modify {
            owner.assertCurrent("this state")
            yield &stored
        }
    }

    /// The value without the check, for `deinit` of its owner, when no block of the queue can
    /// run any more.
    package var valueAtTeardown: Value { stored }
}
