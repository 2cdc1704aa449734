import Foundation
import Testing

@testable import HTTPCore

#if canImport(Glibc)
import Glibc
#endif

/// The per-address connection share, live on 127.0.0.1:0 with real sockets: one address
/// cannot hold more than its share, the next connection learns why (`429` problem+json), other
/// addresses (127.0.0.2: the whole of 127/8 is loopback on Linux) are served, and every way a
/// connection closes gives its place back.
@Suite struct ServerAddressShareTests {
    static func server(share: Int, adjust: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> LiveServer {
        try LiveServer(adjust: { config in
            config.maxConnections = 32
            config.maxConnectionsPerAddress = share
            adjust(&config)
        }) { router in
            router.get("/") { _, _ in textResponse("ok") }
        }
    }

    /// Polls `condition` every 10 ms until it holds or 5 s pass.
    static func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }

    /// A new connection from `source` gets "ok" for `GET /`.
    static func isServed(_ live: LiveServer, from source: String? = nil) throws -> Bool {
        let client = try live.client(from: source)
        try client.send(rawGet("/"))
        let response = try client.readResponse()
        return response.status == 200 && response.text == "ok"
    }

    @Test func theConnectionOverTheShareIsAnswered429AndOtherAddressesAreServed() throws {
        let live = try Self.server(share: 3)
        defer { live.stop() }
        var held: [RawClient] = []
        for _ in 0..<3 {
            let client = try live.client()
            try client.send(rawGet("/"))
            #expect(try client.readResponse().text == "ok")
            held.append(client)
        }
        #expect(live.server.openConnections(from: "127.0.0.1") == 3)

        // The fourth learns why without sending anything, then sees the close.
        let over = try live.client()
        let refused = try over.readResponse()
        #expect(refused.status == 429)
        #expect(refused.headers["Connection"] == "close")
        #expect(refused.headers["Retry-After"] == "1")
        #expect(refused.headers["Content-Type"] == "application/problem+json")
        #expect(refused.text.contains("\"status\":429"))
        #expect(refused.text.contains("\"type\":\"about:blank\""))
        #expect(refused.text.contains("3 connections"))
        #expect(try over.isClosedByPeer())

        // One that sent its request first reads the same answer, not a reset.
        let eager = try live.client()
        try eager.send(rawGet("/"))
        #expect(try eager.readResponse().status == 429)
        #expect(try eager.isClosedByPeer())

        // Another address has its own share; the held connections still work.
        #expect(try Self.isServed(live, from: "127.0.0.2"))
        try held[0].send(rawGet("/"))
        #expect(try held[0].readResponse().text == "ok")

        // One closes; its place comes back.
        held.removeFirst()
        #expect(Self.eventually { live.server.openConnections(from: "127.0.0.1") == 2 })
        let again = try live.client()
        try again.send(rawGet("/"))
        #expect(try again.readResponse().text == "ok")
        #expect(live.server.refusedConnections == 2)
    }

    @Test func everyWayOfClosingGivesThePlaceBack() throws {
        let live = try Self.server(share: 1) { config in
            config.headerTimeout = .milliseconds(300)
            config.idleTimeout = .milliseconds(300)
            config.maxRequestsPerConnection = 2
        }
        defer { live.stop() }
        func placeComesBack(_ path: String) throws {
            #expect(Self.eventually { live.server.openConnections(from: "127.0.0.1") == 0 }, "\(path)")
            #expect(try Self.isServed(live), "\(path)")
            #expect(Self.eventually { live.server.openConnections(from: "127.0.0.1") == 0 }, "\(path)")
        }

        // The client closes after a response (the isServed connections close this way too).
        do {
            let client = try live.client()
            try client.send(rawGet("/"))
            _ = try client.readResponse()
        }
        try placeComesBack("client close")

        // The request asks for Connection: close.
        let closing = try live.client()
        try closing.send(rawGet("/", "Connection: close\r\n"))
        #expect(try closing.readResponse().headers["Connection"] == "close")
        #expect(try closing.isClosedByPeer())
        try placeComesBack("Connection: close")

        // The per-connection request cap.
        let capped = try live.client()
        try capped.send(rawGet("/") + rawGet("/"))
        _ = try capped.readResponse()
        #expect(try capped.readResponse().headers["Connection"] == "close")
        #expect(try capped.isClosedByPeer())
        try placeComesBack("request cap")

        // A malformed request: 400, then the close.
        let malformed = try live.client()
        try malformed.send("GET / HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n")
        #expect(try malformed.readResponse().status == 400)
        #expect(try malformed.isClosedByPeer())
        try placeComesBack("400")

        // Nothing sent: the header timeout closes it.
        let silent = try live.client()
        #expect(try silent.isClosedByPeer())
        try placeComesBack("header timeout")

        // An idle keep-alive connection: the idle timeout closes it.
        let idle = try live.client()
        try idle.send(rawGet("/"))
        _ = try idle.readResponse()
        #expect(try idle.isClosedByPeer())
        try placeComesBack("idle timeout")

        // A partial head: 408, then the close.
        let partial = try live.client()
        try partial.send("GET / HTTP/1.1\r\nHo")
        #expect(try partial.readResponse().status == 408)
        try placeComesBack("408")

        // A reset from the client.
        var reset: RawClient? = try live.client()
        try reset?.send(rawGet("/"))
        _ = try reset?.readResponse()
        try reset?.socket.setAbortOnClose()
        reset = nil  // closes with SO_LINGER 0: RST
        try placeComesBack("reset")
        #expect(live.server.refusedConnections == 0)
    }

    @Test func zeroTurnsTheShareOff() throws {
        let live = try Self.server(share: 0)
        defer { live.stop() }
        var held: [RawClient] = []
        for _ in 0..<20 {
            let client = try live.client()
            try client.send(rawGet("/"))
            #expect(try client.readResponse().text == "ok")
            held.append(client)
        }
        #expect(live.server.refusedConnections == 0)
    }
}
