import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

/// One client shared by many tasks at once: every answer reaches the call that asked for it.
@Suite("PermissionClient thread safety", .timeLimit(.minutes(1)), .blocksItsThread)
struct ConcurrencyTests {
    @Test func oneClientManyTasks() async throws {
        let server = try ScriptedServer { request, _ in
            // Echo the user of the path as the level, so each call can check its own answer.
            let user = request.target.split(separator: "/")[2]
            return .authorization(status: "authorized", level: "l\(user)")
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<32 {
                group.addTask {
                    var wrong = 0
                    for call in 0..<20 {
                        let user = "u\(task)x\(call)"
                        let status = try await client.status(user: user, app: "com.example.maps", service: "location")
                        if status != .authorized(level: "l\(user)") { wrong += 1 }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(server.requests.count == 32 * 20)
        // Connections are reused: far fewer than one per call.
        #expect(Set(server.requests.map(\.connection)).count < 200)
    }

    /// Handles given back while others still run are kept, with their connections: 32 calls at
    /// a time, round after round, use 32 connections, not new ones each round (a pool that kept
    /// fewer idle handles than calls closed the rest and opened them again).
    @Test func theConnectionsOfTheCallsThatRunAtOnceAreKept() async throws {
        let server = try ScriptedServer { _, _ in
            Thread.sleep(forTimeInterval: 0.005)
            return .authorization(status: "denied")
        }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        for _ in 0..<10 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<32 {
                    group.addTask { _ = try await client.status(user: "u\(task)", app: "com.example.maps", service: "camera") }
                }
                try await group.waitForAll()
            }
        }
        #expect(server.requests.count == 320)
        #expect(Set(server.requests.map(\.connection)).count <= 32, "\(Set(server.requests.map(\.connection)).count)")
    }

    /// Concurrent async calls below the thread cap all start at once: the server holds each
    /// request until all 32 are in (at most 10 s), so the most it sees at once is 32 only if
    /// the client held none of them back.
    @Test func concurrentCallsAreNotHeldBack() async throws {
        let calls = 32
        let gate = ArrivalGate()
        let server = try ScriptedServer { _, _ in
            gate.arriveAndWait(for: calls, atMost: 10)
            return .authorization(status: "denied")
        }
        defer { server.stop() }
        let client = try TransportTests.client(server, timeout: .seconds(20))
        let answers = try await withThrowingTaskGroup(of: AccessStatus.self) { group in
            for task in 0..<calls {
                group.addTask { try await client.status(user: "u\(task)", app: "com.example.maps", service: "location") }
            }
            return try await group.reduce(into: [AccessStatus]()) { $0.append($1) }
        }
        #expect(answers.count == calls && answers.allSatisfy { $0 == .denied })
        let most = gate.most
        #expect(most == calls, "at most \(most) of \(calls) calls were at the server at once")
    }

    /// `timeout` bounds each caller's wait even with many calls at once against a server
    /// that never answers.
    @Test func timeoutBoundsEveryConcurrentCall() async throws {
        let server = try ScriptedServer { _, _ in .stall }
        defer { server.stop() }
        let client = try TransportTests.client(server, timeout: .milliseconds(500), retry: .none)
        let started = ContinuousClock.now
        let timedOut = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<32 {
                group.addTask {
                    do {
                        _ = try await client.status(user: "u\(task)", app: "com.example.maps", service: "location")
                        return false
                    } catch {
                        return (error as? PermissionClientError)?.isTimeout == true
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - started
        #expect(timedOut.count == 32 && timedOut.allSatisfy { $0 })
        #expect(elapsed < .seconds(3), "32 calls with a 0.5 s timeout took \(elapsed)")
    }

    @Test func blockingCallsFromManyThreads() throws {
        let server = try ScriptedServer { _, _ in .authorization(status: "denied") }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        let failures = LockedCount()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<10 {
                do {
                    let value = try client.sendBlocking(
                        Endpoints.status(user: "u1", app: "com.example.maps", service: "location")
                    ).value
                    if value != .denied { failures.add() }
                } catch {
                    failures.add()
                }
            }
        }
        #expect(failures.value == 0)
        #expect(server.requests.count == 160)
    }
}

final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

/// Requests held until a number of them are in at once, counting the most seen together.
private final class ArrivalGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var now = 0
    private var mostSeen = 0

    /// Waits until `count` requests are in together, or `seconds` pass.
    func arriveAndWait(for count: Int, atMost seconds: Double) {
        condition.lock()
        defer { condition.unlock() }
        now += 1
        mostSeen = max(mostSeen, now)
        condition.broadcast()
        let deadline = Date() + seconds
        while mostSeen < count, condition.wait(until: deadline) {}
        now -= 1
    }

    var most: Int {
        condition.lock()
        defer { condition.unlock() }
        return mostSeen
    }
}
