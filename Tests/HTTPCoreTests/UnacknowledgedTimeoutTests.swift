import Foundation
import Testing

@testable import HTTPCore

#if canImport(Glibc)
import Glibc
#endif

/// The time the kernel lets bytes sent stay unacknowledged (`TCP_USER_TIMEOUT`) on an accepted
/// connection: the write timeout, never under 10 s. With a second's write timeout the kernel
/// reset clients that read steadily on a busy host (a few loopback losses back off past it).
@Suite struct UnacknowledgedTimeoutTests {
    @Test func theWriteTimeoutWithAFloor() {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        #expect(configuration.unacknowledgedTimeout == .seconds(30))
        configuration.writeTimeout = .seconds(45)
        #expect(configuration.unacknowledgedTimeout == .seconds(45))
        configuration.writeTimeout = .seconds(1)
        #expect(configuration.unacknowledgedTimeout == .seconds(10))
    }

    /// The accepted socket's own option, read back from the kernel.
    @Test(arguments: [(1, 10_000), (45, 45_000)])
    func acceptedConnectionsCarryIt(writeTimeout: Int, milliseconds: Int) throws {
        let live = try LiveServer(adjust: { $0.writeTimeout = .seconds(writeTimeout) }) { router in
            router.get("/") { _, _ in textResponse("hi") }
        }
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/"))
        #expect(try client.readResponse().status == 200)
        live.server.lock.lock()
        let sockets = live.server.connections.values.map(\.socket)
        live.server.lock.unlock()
        try #require(sockets.count == 1)
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(sockets[0].fd, Int32(IPPROTO_TCP), Int32(TCP_USER_TIMEOUT), &value, &length) == 0)
        #expect(Int(value) == milliseconds)
    }
}
