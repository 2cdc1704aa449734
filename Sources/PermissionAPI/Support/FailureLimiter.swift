internal import Ownership
import Synchronization

/// Slows down guessing (SPEC §6): each remote address gets a `TokenBucket` that every failed
/// authentication with a presented key drains; while it is empty such an attempt gets 429
/// instead of 401 (a request without any key always gets 401). Requests
/// with a valid key never consult it, so they are never throttled.
/// The buckets live in a `FailureTable` of at most `maximumAddresses`, where the addresses
/// that failed most recently stay and each failure costs a fixed amount of work.
final class FailureLimiter: Sendable {
    let capacity: Double
    let refillPerSecond: Double
    /// Most addresses tracked; beyond it, the one that failed longest ago is forgotten.
    let maximumAddresses: Int
    private let table: Mutex<FailureTable>
    private let origin = ContinuousClock.now

    init(capacity: Double = 10, refillPerSecond: Double = 1, maximumAddresses: Int = 10_000) {
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
        self.maximumAddresses = maximumAddresses
        table = Mutex(FailureTable(capacity: maximumAddresses, burst: capacity, refillPerSecond: refillPerSecond))
    }

    /// Seconds the address must wait, or nil when it may try.
    func retryAfter(_ address: String) -> Int? {
        let now = seconds()
        return table.withLock { $0.retryAfter(address, now: now) }
    }

    /// Records one failure of `address`.
    func recordFailure(_ address: String) {
        let now = seconds()
        table.withLock { $0.recordFailure(address, now: now) }
    }

    /// Addresses tracked now.
    var trackedAddresses: Int { table.withLock { $0.count } }

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
        origin.duration(to: .now).inSeconds
    }
}
