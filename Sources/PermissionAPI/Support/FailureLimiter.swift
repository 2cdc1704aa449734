import Synchronization

/// Slows down guessing (SPEC §6): each remote address gets a `TokenBucket` that every failed
/// authentication with a presented key drains; while it is empty such an attempt gets 429
/// instead of 401 (a request without any key always gets 401). Requests
/// with a valid key never consult it, so they are never throttled.
/// Addresses that never failed cost one lookup in an empty-ish table.
final class FailureLimiter: Sendable {
    let capacity: Double
    let refillPerSecond: Double
    /// Most addresses tracked; beyond it, full buckets are forgotten first.
    let maximumAddresses: Int
    private let buckets = Mutex<[String: TokenBucket]>([:])
    private let origin = ContinuousClock.now

    init(capacity: Double = 10, refillPerSecond: Double = 1, maximumAddresses: Int = 10_000) {
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
        self.maximumAddresses = maximumAddresses
    }

    /// Seconds the address must wait, or nil when it may try.
    func retryAfter(_ address: String) -> Int? {
        let now = seconds()
        return buckets.withLock { buckets -> Int? in
            guard var bucket = buckets[address] else { return nil }
            defer { buckets[address] = bucket }
            return bucket.hasToken(now: now) ? nil : bucket.secondsUntilToken()
        }
    }

    /// Records one failure of `address`.
    func recordFailure(_ address: String) {
        let now = seconds()
        buckets.withLock { buckets in
            var bucket = buckets[address] ?? TokenBucket(capacity: capacity, refillPerSecond: refillPerSecond, now: now)
            _ = bucket.take(now: now)
            buckets[address] = bucket
            if buckets.count > maximumAddresses { buckets = buckets.filter { !$0.value.isFull(now: now) } }
        }
    }

    /// The host part of a `host:port` or `[v6]:port` peer address: buckets are per host.
    static func host(of remoteAddress: String) -> String {
        if remoteAddress.hasPrefix("["), let end = remoteAddress.firstIndex(of: "]") {
            return String(remoteAddress[remoteAddress.index(after: remoteAddress.startIndex)..<end])
        }
        let colons = remoteAddress.utf8.count(where: { $0 == UInt8(ascii: ":") })
        if colons == 1, let colon = remoteAddress.lastIndex(of: ":") { return String(remoteAddress[..<colon]) }
        return remoteAddress
    }

    private func seconds() -> Double {
        let elapsed = origin.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
