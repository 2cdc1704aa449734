import Synchronization

/// Caps the concurrent event streams (and a consent session's downloads), in all and per key:
/// each holds a worker thread for as long as the client listens, and one key must not take
/// every slot. A slot is released when the response that holds it is released, whether or not
/// its stream ever ran. `Sendable` as checked by the compiler: the counts live in a `Mutex`.
final class StreamLimiter: Sendable {
    /// Why no slot was given.
    enum Refusal: Error {
        /// The key has `maximumPerKey` streams open.
        case keyAtCap
        /// `maximum` streams are open.
        case full
    }

    private struct Counts {
        var active = 0
        var perKey: [String: Int] = [:]
    }

    private let counts = Mutex(Counts())
    let maximum: Int
    let maximumPerKey: Int

    /// - Parameters:
    ///   - maximum: streams open at most (at least 1).
    ///   - maximumPerKey: streams one key may hold open at most (at least 1).
    init(maximum: Int, maximumPerKey: Int) {
        precondition(maximum >= 1 && maximumPerKey >= 1, "stream caps are at least 1")
        self.maximum = maximum
        self.maximumPerKey = maximumPerKey
    }

    /// A slot for a stream of `key` (the key id, or the role of a caller without one).
    /// - Throws: `Refusal.keyAtCap` first, then `Refusal.full`.
    func acquire(key: String) throws(Refusal) -> Slot {
        try counts.withLock { (counts) throws(Refusal) in
            let held = counts.perKey[key, default: 0]
            guard held < maximumPerKey else { throw .keyAtCap }
            guard counts.active < maximum else { throw .full }
            counts.active += 1
            counts.perKey[key] = held + 1
        }
        return Slot(limiter: self, key: key)
    }

    var activeCount: Int {
        counts.withLock { $0.active }
    }

    fileprivate func release(key: String) {
        counts.withLock { counts in
            let held = counts.perKey[key, default: 0]
            precondition(held >= 1 && counts.active >= 1, "a stream slot released twice")
            counts.active -= 1
            counts.perKey[key] = held == 1 ? nil : held - 1
        }
    }

    /// One open stream; releasing the last reference frees the slot.
    final class Slot: Sendable {
        private let limiter: StreamLimiter
        private let key: String
        fileprivate init(limiter: StreamLimiter, key: String) {
            self.limiter = limiter
            self.key = key
        }
        deinit { limiter.release(key: key) }
    }
}
