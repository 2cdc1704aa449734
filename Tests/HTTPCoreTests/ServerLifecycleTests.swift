import Dispatch
import Foundation
import HTTPCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Live binding, the connection cap and graceful shutdown.
@Suite struct ServerLifecycleTests {
    /// At the cap with every connection busy (a request in flight), the next waits in the
    /// backlog until one is idle again, which is then closed to make room for it.
    @Test func connectionCapMakesTheNextConnectionWaitWhileAllAreBusy() throws {
        let live = try LiveServer(adjust: { $0.maxConnections = 2 }) { router in
            router.get("/") { _, _ in textResponse("ok") }
            router.get("/slow") { _, _ in
                Thread.sleep(forTimeInterval: 1.5)
                return textResponse("slow")
            }
        }
        defer { live.stop() }
        let first = try live.client()
        let second = try live.client()
        try first.send(rawGet("/slow"))
        try second.send(rawGet("/slow"))
        Thread.sleep(forTimeInterval: 0.2)
        // The third connects (the kernel backlog holds it) but is not served yet: no connection
        // is idle, so none is closed for it.
        let third = try RawClient(port: live.port, timeoutMilliseconds: 500)
        try third.send(rawGet("/"))
        #expect(throws: RawClientError.self) { try third.readResponse() }
        #expect(live.server.reclaimedConnections == 0, "none is idle")
        #expect(try first.readResponse().text == "slow")
        #expect(try second.readResponse().text == "slow")
        try third.socket.setTimeouts(milliseconds: 5000)
        #expect(try third.readResponse().text == "ok", "served once one of the two was idle")
        #expect(live.server.reclaimedConnections == 1)
        #expect(live.server.openConnections == 2)
    }

    /// At the cap, the connection idle longest between requests is closed to make room
    /// (RFC 9112 §9.5), one for each new connection; the others, and busy ones, stay.
    @Test func atTheCapTheLongestIdleConnectionMakesRoom() throws {
        let live = try LiveServer(adjust: { $0.maxConnections = 3 }) { router in
            router.get("/") { _, _ in textResponse("ok") }
            router.get("/slow") { _, _ in
                Thread.sleep(forTimeInterval: 1)
                return textResponse("slow")
            }
        }
        defer { live.stop() }
        let busy = try live.client()
        let oldest = try live.client()
        let newer = try live.client()
        try oldest.send(rawGet("/"))
        #expect(try oldest.readResponse().text == "ok")
        Thread.sleep(forTimeInterval: 0.05)
        try newer.send(rawGet("/"))
        #expect(try newer.readResponse().text == "ok")
        try busy.send(rawGet("/slow"))
        Thread.sleep(forTimeInterval: 0.1)

        let fourth = try RawClient(port: live.port, timeoutMilliseconds: 5000)
        try fourth.send(rawGet("/"))
        #expect(try fourth.readResponse().text == "ok")
        #expect(try oldest.isClosedByPeer(), "idle the longest: closed to make room")
        #expect(live.server.reclaimedConnections == 1)
        #expect(try busy.readResponse().text == "slow", "a request in flight keeps its connection")
        try newer.send(rawGet("/"))
        #expect(try newer.readResponse().text == "ok", "the other idle connection stays open")
        #expect(live.server.openConnections == 3)
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

    /// A request still running at the shutdown's deadline does not hold the stop: its
    /// connection is closed without an answer.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func shutdownDeadlineForceClosesStuckRequests() throws {
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        defer { gate.signal() }  // frees the worker thread
        let live = try LiveServer { router in
            router.get("/stuck") { _, _ in
                entered.signal()
                _ = gate.wait(timeout: .now() + 30)
                return textResponse("late")
            }
        }
        let client = try live.client()
        try client.send(rawGet("/stuck"))
        try #require(entered.wait(timeout: .now() + 10) == .success)
        let started = Date()
        live.server.shutdown(deadline: .now() + .milliseconds(300))
        live.server.waitUntilStopped()
        // Far below the handler's 30 s: the deadline ended the wait.
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(try client.isClosedByPeer())
        #expect(client.unreadBytes == 0, "an answer was sent")
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

/// A stream running when a graceful shutdown begins is the connection's last response: once it
/// ends, the connection closes and the server stops, long before the shutdown's deadline (the
/// connection stayed idle until then, and was reported as force-closed).
@Test(.timeLimit(.minutes(1)), .blocksItsThread) func aStreamEndingDuringShutdownClosesItsConnection() throws {
    let gate = DispatchSemaphore(value: 0)
    let entered = DispatchSemaphore(value: 0)
    defer { gate.signal() }
    let live = try LiveServer { router in
        router.get("/stream") { _, _ in
            HTTPResponse(
                body: .stream { writer in
                    try writer.write(Array("a".utf8))
                    try writer.flush()
                    entered.signal()
                    _ = gate.wait(timeout: .now() + 30)
                    try writer.write(Array("b".utf8))
                })
        }
    }
    let client = try live.client()
    try client.send(rawGet("/stream"))
    try #require(entered.wait(timeout: .now() + 10) == .success)
    let started = Date()
    live.server.shutdown(deadline: .now() + .seconds(20))
    gate.signal()
    #expect(try client.readResponse().text == "ab")
    #expect(try client.isClosedByPeer())
    live.server.waitUntilStopped()
    #expect(Date().timeIntervalSince(started) < 10, "stopped at the deadline, not when the stream ended")
}
