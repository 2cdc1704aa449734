import Dispatch
import Foundation
import Logging
import Testing

@testable import HTTPCore

#if canImport(Glibc)
import Glibc
#endif

/// Each owner of unsynchronized engine state checks, in debug builds, that the caller is on it:
/// a hop to the wrong thread or queue stops the process instead of corrupting memory. One
/// exit test per kind of owner, beside the right hop that passes.
#if DEBUG
@Suite struct OwnershipTests {
    /// A connection over one end of a socket pair, on a loop that is never started (so nothing
    /// else runs on its queue), in a server that is never started.
    static func makeConnection() throws -> HTTPConnection {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw SocketError.lastError("socketpair") }
        let configuration = HTTPServerConfiguration()
        var logger = Logger(label: "test.ownership")
        logger.logLevel = .critical
        let responder = ClosureResponder { _, _ in HTTPResponse() }
        let environment = ServerEnvironment(
            configuration: configuration, responder: responder, logger: logger,
            parser: HTTPRequestParser(limits: configuration.limits),
            workers: WorkerPool(name: "test.worker", maximumThreads: 4), requestIdPrefix: "test")
        return HTTPConnection(
            id: 1, socket: Socket(fd: fds[0]), peer: "peer", address: "address", admission: .admitted,
            loop: try EventLoop(index: 0, logger: logger),
            server: HTTPServer(configuration: configuration, responder: responder, logger: logger),
            environment: environment)
    }

    @Test func theEventLoopsStateIsTouchedOnItsQueueOnly() async throws {
        let connection = try Self.makeConnection()
        connection.loop.queue.sync { connection.loop.setInterest(of: connection, to: .none) }
        try expectTrap(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let connection = try Self.makeConnection()
                connection.loop.setInterest(of: connection, to: .none)
            })
    }

    @Test func aConnectionIsDrivenOnItsLoopOnly() async throws {
        let connection = try Self.makeConnection()
        connection.loop.queue.sync { connection.beginShutdown() }
        #expect(connection.machine.isClosed)
        try expectTrap(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let connection = try Self.makeConnection()
                connection.beginShutdown()
            })
    }

    @Test func theWorkerWritesOutputOnlyWhileItOwnsIt() async throws {
        let connection = try Self.makeConnection()
        connection.loop.queue.sync { connection.handOutput(toWorker: true) }
        try connection.flushBlocking(threshold: 0)  // off the loop, handed over: allowed
        // Not handed over: the loop still owns the output.
        try expectTrap(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let connection = try Self.makeConnection()
                try connection.flushBlocking(threshold: 0)
            })
        // Handed over, but written from the loop.
        try expectTrap(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let connection = try Self.makeConnection()
                try connection.loop.queue.sync {
                    connection.handOutput(toWorker: true)
                    try connection.flushBlocking(threshold: 0)
                }
            })
    }

    @Test func connectionStorageBelongsToWhoeverServesTheRequest() async throws {
        let connection = try Self.makeConnection()
        connection.loop.queue.sync { connection.storage.value = connection }
        try expectTrap(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let connection = try Self.makeConnection()
                _ = connection.storage.value
            })
        // A storage made outside a server has no owner to check.
        let free = ConnectionStorage()
        free.value = free
        #expect(free.value != nil)
    }

    @Test func aMetricsShardRecordsOnItsOwnThreadOnly() async throws {
        let metrics = HTTPMetrics()
        let shard = HTTPMetrics.Shard(owner: metrics)
        shard.record(route: "/", method: "GET", status: 200, nanoseconds: 1)
        try expectTrap(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let shard = HTTPMetrics.Shard(owner: HTTPMetrics())
                let thread = Thread { shard.record(route: "/", method: "GET", status: 200, nanoseconds: 1) }
                thread.start()
                usleep(5_000_000)  // the record above stops the process first
            })
    }

    @Test func theServerAcceptsOnItsAcceptQueueOnly() async throws {
        try expectTrap(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let server = HTTPServer(
                    configuration: HTTPServerConfiguration(), responder: ClosureResponder { _, _ in HTTPResponse() },
                    logger: Logger(label: "test.ownership"))
                server.acceptPending()
            })
    }

    /// The child stopped on an ownership check, not on anything else (a thrown error, a missing
    /// descriptor): its standard error names a queue precondition or the owner's message.
    private func expectTrap(_ result: ExitTest.Result?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try #require(result, sourceLocation: sourceLocation)
        let text = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(
            text.contains("queue, but ran elsewhere") || text.contains("must not run on")
                || text.contains("the worker touched output the loop owns") || text.contains("another thread's shard"),
            "\(text)", sourceLocation: sourceLocation)
    }
}
#endif
