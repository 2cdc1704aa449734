import Dispatch
import Foundation
import HTTPCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Live binding, the connection cap and graceful shutdown.
@Suite struct ServerLifecycleTests {
    @Test func connectionCapMakesTheNextConnectionWait() throws {
        let live = try LiveServer(adjust: { $0.maxConnections = 2 }) { router in
            router.get("/") { _, _ in textResponse("ok") }
        }
        defer { live.stop() }
        let first = try live.client()
        let second = try live.client()
        try first.send(rawGet("/"))
        try second.send(rawGet("/"))
        #expect(try first.readResponse().text == "ok")
        #expect(try second.readResponse().text == "ok")
        // The third connects (the kernel backlog holds it) but is not served yet.
        let third = try RawClient(port: live.port, timeoutMilliseconds: 500)
        try third.send(rawGet("/"))
        #expect(throws: RawClientError.self) { try third.readResponse() }
        try first.socket.shutdown(Int32(SHUT_RDWR))
        try third.socket.setTimeouts(milliseconds: 5000)
        #expect(try third.readResponse().text == "ok")
    }

    @Test func gracefulShutdownFinishesInFlightRequestAndRefusesNewOnes() throws {
        let live = try LiveServer(adjust: { $0.shutdownGracePeriod = .seconds(5) }) { router in
            router.get("/slow") { _, _ in
                Thread.sleep(forTimeInterval: 0.8)
                return textResponse("done")
            }
        }
        let busy = try live.client()
        let idle = try live.client()
        try idle.send(rawGet("/slow"))
        Thread.sleep(forTimeInterval: 0.9)
        #expect(try idle.readResponse().text == "done")
        try busy.send(rawGet("/slow"))
        Thread.sleep(forTimeInterval: 0.2)
        let started = Date()
        live.server.shutdown(deadline: .now() + .seconds(5))
        // The idle keep-alive connection is closed at once.
        #expect(try idle.isClosedByPeer())
        // New connections are refused once the listener is closed.
        Thread.sleep(forTimeInterval: 0.1)
        #expect(throws: SocketError.self) { try Socket.connect(host: "127.0.0.1", port: live.port) }
        // The in-flight request still gets its response, with Connection: close.
        let response = try busy.readResponse()
        #expect(response.text == "done")
        #expect(response.headers["Connection"] == "close")
        live.server.waitUntilStopped()
        #expect(Date().timeIntervalSince(started) < 4)
    }

    @Test func shutdownDeadlineForceClosesStuckRequests() throws {
        let live = try LiveServer { router in
            router.get("/stuck") { _, _ in
                Thread.sleep(forTimeInterval: 3)
                return textResponse("late")
            }
        }
        let client = try live.client()
        try client.send(rawGet("/stuck"))
        Thread.sleep(forTimeInterval: 0.2)
        let started = Date()
        live.server.shutdown(deadline: .now() + .milliseconds(300))
        live.server.waitUntilStopped()
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test func bindFailureThrowsAndPortZeroIsReported() throws {
        let live = try LiveServer { router in router.get("/") { _, _ in textResponse("ok") } }
        defer { live.stop() }
        #expect(live.port > 0)
        var config = HTTPServerConfiguration(host: "127.0.0.1", port: live.port)
        config.sweepInterval = .milliseconds(50)
        let clash = HTTPServer(
            configuration: config, responder: ClosureResponder { _, _ in textResponse("x") }, logger: .init(label: "t"))
        #expect(throws: SocketError.self) { try clash.start() }
        let bad = HTTPServer(
            configuration: HTTPServerConfiguration(host: "not an address", port: 0),
            responder: ClosureResponder { _, _ in textResponse("x") }, logger: .init(label: "t"))
        #expect(throws: SocketError.self) { try bad.start() }
    }

    @Test func servesOverIPv6Loopback() throws {
        let live = try LiveServer(adjust: { $0.host = "::1" }) { router in
            router.get("/") { _, context in textResponse(context.remoteAddress) }
        }
        defer { live.stop() }
        let socket = try Socket.connect(host: "::1", port: live.port)
        defer { _ = Result { try socket.close() } }
        try socket.setTimeouts(milliseconds: 3000)
        try socket.sendAll(Array(rawGet("/").utf8))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = try buffer.withUnsafeMutableBytes { try socket.read(into: $0.baseAddress!, count: $0.count) } ?? 0
        let text = String(decoding: buffer[0..<n], as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("[::1]:"))
    }
}
