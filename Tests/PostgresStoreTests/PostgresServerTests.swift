import Foundation
import PostgresStore
import PostgresTestServer
import TestProcesses
import Testing

/// Live: the harness itself, and connections to a server that is gone or never answers.
@Suite struct PostgresServerTests {
    @Test func aStoppedServerIsGoneWithItsDirectoryAndConnectionsFailCleanly() throws {
        let server = try PostgresServer.start()
        let connection = try PostgresConnection(server.connectionString())
        #expect(server.isRunning)
        #expect(PostgresServer.postmasterPID(directory: server.directory) == server.pid)
        #expect(
            try connection.query(PreparedStatement("SELECT pg_backend_pid()"))[0].int64(at: 0) == Int64(connection.backendPID))

        server.stop()
        #expect(!server.isRunning)
        #expect(kill(server.pid, 0) != 0 || PostgresServer.startTime(of: server.pid) == nil)
        #expect(!FileManager.default.fileExists(atPath: server.directory))

        // The open connection was ended by the shutdown: its next call fails as a connection failure.
        let dropped = #expect(throws: PostgresError.self) { try connection.execute("SELECT 1") }
        #expect(dropped?.isConnectionFailure == true)
        #expect(!connection.isConnected)

        // A new connection fails at once, not after a timeout.
        let started = Date()
        let refused = #expect(throws: PostgresError.self) {
            _ = try PostgresConnection(server.connectionString(), connectTimeoutSeconds: 30)
        }
        #expect(refused?.isConnectionFailure == true)
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(refused.map { !$0.description.contains(server.password) } == true)
        server.stop()  // a second stop does nothing
    }

    /// The watchdog stops the server and removes its directory once the process it watches is
    /// gone (here a `sleep` standing in for a test process killed with SIGKILL).
    @Test func theWatchdogStopsTheServerWhenItsProcessDies() throws {
        let standIn = try ChildProcess("/bin/sleep", ["600"])
        let server = try PostgresServer.start(watching: standIn.pid)
        defer { server.stop() }
        _ = try PostgresConnection(server.connectionString())
        #expect(server.isRunning)

        standIn.killAndWait()
        let cleaned = PostgresServer.waitUntil(seconds: 30) {
            !server.isRunning && !FileManager.default.fileExists(atPath: server.directory)
        }
        #expect(cleaned)
        #expect(PostgresServer.startTime(of: server.pid) == nil)
    }

    /// A server that accepts the TCP connection and never answers: `connect_timeout` ends the wait.
    @Test func connectTimeoutBoundsAServerThatNeverAnswers() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        #expect(bound)
        let port = UInt16(bigEndian: address.sin_port)

        let started = ContinuousClock.now
        let error = #expect(throws: PostgresError.self) {
            _ = try PostgresConnection("host=127.0.0.1 port=\(port) user=x dbname=x password=hunter2", connectTimeoutSeconds: 2)
        }
        let elapsed = ContinuousClock.now - started
        #expect(error?.isConnectionFailure == true)
        #expect(error?.message.contains("timeout") == true, "the timeout ended it, not a refusal")
        #expect(error?.connection?.contains("hunter2") == false)
        // libpq counts connect_timeout in the wall clock's whole seconds, which this machine's
        // clock does not keep steadily: the wait is bounded, and the message names its cause.
        #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(15), "\(elapsed)")
    }
}
