/// The token buckets of `FailureLimiter`, one per address, at most `capacity` of them, kept in
/// the order of their addresses' last failure: a doubly linked list threaded through an array,
/// found through a dictionary, so that each call does a fixed amount of work however full the
/// table is. A failure (or a refused attempt while throttled) moves its address to the front;
/// a new address beyond the capacity evicts the one that failed longest ago; and each failure
/// drops up to two buckets at the back that have refilled (they are as good as absent), so
/// addresses that stopped failing leave within the refill time as new failures come. The
/// tradeoff: an address silent while more than `capacity` other addresses fail is forgotten.
/// Pure: time comes in as seconds on a monotonic clock.
struct FailureTable {
    private struct Node {
        var address: String
        var bucket: TokenBucket
        /// Neighbours in failure order (array indices; `none` at either end).
        var newer: Int
        var older: Int
    }

    private static let none = -1
    /// Refilled buckets dropped from the back per failure at most.
    private static let refilledDroppedPerFailure = 2

    let capacity: Int
    let burst: Double
    let refillPerSecond: Double
    private var nodes: [Node] = []
    private var slots: [String: Int] = [:]
    private var unused: [Int] = []
    private var newest = Self.none
    private var oldest = Self.none
    /// Nodes read or relinked and dictionary operations made so far: tests check that one
    /// call's share does not grow with the table.
    private(set) var steps = 0

    /// - Parameters:
    ///   - capacity: addresses tracked at most (at least 1).
    ///   - burst: failures an address may make at once.
    ///   - refillPerSecond: how fast that allowance comes back.
    init(capacity: Int, burst: Double, refillPerSecond: Double) {
        precondition(capacity >= 1, "a failure table holds at least one address")
        self.capacity = capacity
        self.burst = burst
        self.refillPerSecond = refillPerSecond
    }

    /// Addresses tracked now.
    var count: Int { slots.count }

    /// Seconds `address` must wait, or nil when it may try. A throttled address counts as
    /// failing now: it moves to the front, so a flood of other addresses does not evict it.
    mutating func retryAfter(_ address: String, now: Double) -> Int? {
        steps += 1
        guard let slot = slots[address] else { return nil }
        guard !nodes[slot].bucket.hasToken(now: now) else { return nil }
        moveToFront(slot)
        return nodes[slot].bucket.secondsUntilToken()
    }

    /// Records one failure of `address`.
    mutating func recordFailure(_ address: String, now: Double) {
        dropRefilled(now: now)
        steps += 1
        if let slot = slots[address] {
            _ = nodes[slot].bucket.take(now: now)
            moveToFront(slot)
            return
        }
        if slots.count >= capacity { remove(oldest) }
        var bucket = TokenBucket(capacity: burst, refillPerSecond: refillPerSecond, now: now)
        _ = bucket.take(now: now)
        insertAtFront(Node(address: address, bucket: bucket, newer: Self.none, older: Self.none))
    }

    /// The addresses from the most to the least recently failing (for tests).
    var addressesByRecency: [String] {
        var addresses: [String] = []
        var slot = newest
        while slot != Self.none {
            addresses.append(nodes[slot].address)
            slot = nodes[slot].older
        }
        return addresses
    }

    private mutating func dropRefilled(now: Double) {
        for _ in 0..<Self.refilledDroppedPerFailure {
            guard oldest != Self.none else { return }
            steps += 1
            guard nodes[oldest].bucket.isFull(now: now) else { return }
            remove(oldest)
        }
    }

    private mutating func insertAtFront(_ node: Node) {
        var node = node
        node.older = newest
        let slot: Int
        if let reused = unused.popLast() {
            slot = reused
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        if newest != Self.none { nodes[newest].newer = slot }
        newest = slot
        if oldest == Self.none { oldest = slot }
        slots[node.address] = slot
        steps += 2
    }

    private mutating func remove(_ slot: Int) {
        unlink(slot)
        slots[nodes[slot].address] = nil
        nodes[slot].address = ""
        unused.append(slot)
        steps += 2
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        nodes[slot].older = newest
        nodes[slot].newer = Self.none
        if newest != Self.none { nodes[newest].newer = slot }
        newest = slot
        if oldest == Self.none { oldest = slot }
        steps += 2
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (nodes[slot].newer, nodes[slot].older)
        if newer != Self.none { nodes[newer].older = older } else { newest = older }
        if older != Self.none { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = Self.none
        nodes[slot].older = Self.none
        steps += 2
    }
}
