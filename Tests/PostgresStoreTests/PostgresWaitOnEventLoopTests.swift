import Dispatch
import Foundation
import Ownership
import PostgresStore
import PostgresTestServer
import TestThreads
import Testing

/// Live: every round trip to PostgreSQL blocks its thread: in debug builds it stops the process
/// when made on a queue that forbids waiting (an event loop's, see
/// ``QueueOwner/assertMayWait(_:file:line:)``).
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct PostgresWaitOnEventLoopTests {
    @Test func aRoundTripOnAQueueThatAllowsWaitingRuns() throws {
        let connection = try PostgresConnection(try PostgresServer.shared.get().freshDatabase())
        let queue = DispatchQueue(label: "worker")
        _ = QueueOwner("a test worker", marking: queue)
        try queue.sync { try connection.execute("SELECT 1") }
    }

    #if DEBUG
    @Test("a round trip where waits are forbidden stops the process")
    func aRoundTripStops() async throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [database = database as String] in
            let connection = try PostgresConnection(database)
            let loop = DispatchQueue(label: "loop")
            _ = QueueOwner("a test loop", marking: loop, forbidsWaiting: true)
            try loop.sync { try connection.execute("SELECT 1") }
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("a PostgreSQL round trip must not wait on a test loop's queue"), "\(message)")
    }
    #endif
}
