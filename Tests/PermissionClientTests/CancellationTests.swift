import Foundation
import TestThreads
import Testing

@testable import PermissionClient

/// Cancellation reaches a call wherever it is: before a thread (TransportTests), and between
/// taking one and sending, where the attempt loop looks at the flag before each attempt.
@Suite("PermissionClient cancellation before an attempt", .timeLimit(.minutes(1)), .blocksItsThread)
struct CancellationTests {
    @Test func aCallCancelledBeforeItsAttemptSendsNothing() throws {
        let server = try ScriptedServer { _, _ in .authorization(status: "denied") }
        defer { server.stop() }
        let client = try TransportTests.client(server)
        let prepared = try PermissionClient.prepare(
            Endpoints.revoke(user: "u42", app: "com.example.maps", service: "camera"), requestId: "cancelled-1"
        ).get()
        let flag = CancellationFlag()
        flag.cancel()
        let (result, attempts) = client.execute(
            prepared.call, requestId: prepared.requestId, cancel: flag, retry: RetryPolicy(), timeoutMilliseconds: 5_000)
        guard case .failure(let error) = result else {
            Issue.record("a cancelled call was sent: \(result)")
            return
        }
        #expect(error.isCancelled && error.requestId == "cancelled-1", "\(error)")
        #expect(attempts == 0)
        #expect(server.requests.isEmpty)
    }
}
