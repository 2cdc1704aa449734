import Foundation

/// Caps the concurrent event streams: each holds a worker thread for as long as the client
/// listens. A slot is released when the response that holds it is released, whether or not
/// its stream ever ran.
final class StreamLimiter: @unchecked Sendable {
    private let lock = NSLock()
    private var active = 0
    let maximum: Int

    init(maximum: Int) { self.maximum = maximum }

    /// A slot, or nil when `maximum` streams are open.
    func acquire() -> Slot? {
        lock.lock()
        defer { lock.unlock() }
        guard active < maximum else { return nil }
        active += 1
        return Slot(limiter: self)
    }

    var activeCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return active
    }

    fileprivate func release() {
        lock.lock()
        active -= 1
        lock.unlock()
    }

    /// One open stream; releasing the last reference frees the slot.
    final class Slot: @unchecked Sendable {
        private let limiter: StreamLimiter
        fileprivate init(limiter: StreamLimiter) { self.limiter = limiter }
        deinit { limiter.release() }
    }
}
