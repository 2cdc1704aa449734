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
