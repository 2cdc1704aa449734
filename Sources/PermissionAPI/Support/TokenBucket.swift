/// A token bucket (a burst of `capacity`, refilled at `refillPerSecond`), pure: time comes in
/// as seconds on a monotonic clock. Used to slow down failed authentications per address.
struct TokenBucket: Sendable, Equatable {
    let capacity: Double
    let refillPerSecond: Double
    private(set) var tokens: Double
    private(set) var updatedAt: Double

    init(capacity: Double, refillPerSecond: Double, now: Double) {
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
        tokens = capacity
        updatedAt = now
    }

    /// Adds what has dripped in since the last call, up to `capacity`.
    mutating func refill(now: Double) {
        guard now > updatedAt else { return }
        tokens = min(capacity, tokens + (now - updatedAt) * refillPerSecond)
        updatedAt = now
    }

    /// Whether a token is available now (without taking it).
    mutating func hasToken(now: Double) -> Bool {
        refill(now: now)
        return tokens >= 1
    }

    /// Takes a token if one is available; returns whether it did.
    mutating func take(now: Double) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Whole seconds until a token is available (at least 1): the `Retry-After` value.
    func secondsUntilToken() -> Int {
        guard tokens < 1 else { return 0 }
        return max(1, Int(((1 - tokens) / refillPerSecond).rounded(.up)))
    }

    /// Full again: the entry may be forgotten.
    func isFull(now: Double) -> Bool {
        min(capacity, tokens + max(0, now - updatedAt) * refillPerSecond) >= capacity
    }
}
