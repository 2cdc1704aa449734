import Foundation

/// Holds the threads that pass through it (a scripted server's answer, a download's sink)
/// until the test lets them go: ``release(_:)`` lets that many more through, ``open()`` all.
/// Every wait is bounded, so a failed test never leaves a thread held for ever.
final class Gate: @unchecked Sendable {
    // @unchecked: `passes`, `opened` and `waiting` are read and written only while `condition`
    // is locked.
    private let condition = NSCondition()
    private var passes = 0
    private var opened = false
    private var waiting = 0

    /// Blocks until a pass is free (and takes it), the gate is open, or `limit` passed.
    /// - Returns: `false` when `limit` passed first.
    @discardableResult
    func wait(upTo limit: TimeInterval = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: limit)
        condition.lock()
        defer { condition.unlock() }
        waiting += 1
        defer { waiting -= 1 }
        while !opened && passes == 0 {
            if !condition.wait(until: deadline) { return false }
        }
        if !opened { passes -= 1 }
        return true
    }

    /// Lets `count` more waiters through.
    func release(_ count: Int = 1) {
        condition.lock()
        passes += count
        condition.broadcast()
        condition.unlock()
    }

    /// Lets every waiter through, now and later.
    func open() {
        condition.lock()
        opened = true
        condition.broadcast()
        condition.unlock()
    }

    /// Threads waiting at the gate now.
    var held: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting
    }
}
