import Foundation
import Testing

@testable import PermissionAPI

/// The failed-authentication table (`FailureLimiter`): bounded in size, with the most recently
/// failing addresses kept, and O(1) work per failure however full it is.
@Suite struct FailureLimiterTests {
    /// A distinct IPv4-looking address per number.
    static func address(_ number: Int) -> String {
        "10.\(number >> 16 & 255).\(number >> 8 & 255).\(number & 255)"
    }

    @Test func manyDistinctAddressesNeverOutgrowTheTable() {
        let limiter = FailureLimiter(capacity: 10, refillPerSecond: 1, maximumAddresses: 1_000)
        var largest = 0
        for number in 0..<20_000 {
            limiter.recordFailure(Self.address(number))
            largest = max(largest, limiter.trackedAddresses)
        }
        #expect(largest <= 1_000, "the table grew to \(largest) addresses")
    }
}

extension FailureLimiterTests {
    @Test func aMillionAddressesStayWithinTheBoundAtConstantWorkPerFailure() {
        var table = FailureTable(capacity: 10_000, burst: 10, refillPerSecond: 1)
        var largest = 0
        var mostSteps = 0
        for number in 0..<1_000_000 {
            let before = table.steps
            // The clock stands still: no bucket refills, so only the capacity can make room.
            table.recordFailure(Self.address(number), now: 0)
            mostSteps = max(mostSteps, table.steps - before)
            largest = max(largest, table.count)
        }
        #expect(largest == 10_000)
        // A new address in a full table: two refill checks, the lookup, the eviction, the insert.
        #expect(mostSteps <= 12, "one failure took \(mostSteps) steps")
        #expect(table.addressesByRecency.first == Self.address(999_999))
        #expect(table.addressesByRecency.last == Self.address(990_000))
    }

    @Test func aThrottledAddressStaysThrottledThroughAFlood() {
        var table = FailureTable(capacity: 1_000, burst: 10, refillPerSecond: 1)
        let attacker = "203.0.113.9"
        for _ in 0..<10 { table.recordFailure(attacker, now: 0) }
        #expect(table.retryAfter(attacker, now: 0) != nil)
        var throttled = 0
        for number in 0..<100_000 {
            table.recordFailure(Self.address(number), now: 0.000_01 * Double(number))
            // It keeps trying (each refused try keeps it among the most recent): still throttled.
            if number % 500 == 0, table.retryAfter(attacker, now: 0.000_01 * Double(number)) != nil { throttled += 1 }
        }
        #expect(throttled == 200)
        #expect(table.count <= 1_000)
        // Silent while more than the capacity of other addresses fail, it is forgotten (the
        // documented tradeoff): the most recently failing are the ones kept.
        // (At 0.9999 s its bucket would still be empty: nil means it is gone.)
        for number in 100_000..<101_001 { table.recordFailure(Self.address(number), now: 0.9999) }
        #expect(table.retryAfter(attacker, now: 0.9999) == nil)
    }

    @Test func refilledBucketsLeaveTheTable() {
        var table = FailureTable(capacity: 100, burst: 2, refillPerSecond: 1)
        for number in 0..<50 { table.recordFailure(Self.address(number), now: 0) }
        #expect(table.count == 50)
        // Two seconds later every bucket is full again: each new failure drops two of them.
        for number in 50..<75 { table.recordFailure(Self.address(number), now: 2) }
        #expect(table.count == 25)
        #expect(Set(table.addressesByRecency) == Set((50..<75).map(Self.address)))
        // An address that failed again moves to the front; buckets not yet full stay.
        table.recordFailure(Self.address(60), now: 2.5)
        #expect(table.addressesByRecency.first == Self.address(60))
        #expect(table.count == 25)
    }
}
