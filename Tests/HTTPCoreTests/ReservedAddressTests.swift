import Foundation
import HTTPCore
import Logging
import Testing

/// Live: an address reserved before its server exists (``ReservedAddress``) refuses
/// connections until a server starts on it, cannot be reserved where a server listens, and is
/// free again once dropped. It is an early check, not a hold: bound with `SO_REUSEADDR` and not
/// listening, it does not keep another process from binding the address meanwhile.
@Suite struct ReservedAddressTests {
    private func server(port: Int) -> HTTPServer {
        var router = Router()
        router.get("/") { _, _ in textResponse("ok") }
        var logger = Logger(label: "test.reserved")
        logger.logLevel = .critical
        return HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: port), responder: router.buildResponder(),
            logger: logger)
    }

    @Test func aReservedAddressRefusesUntilItsServerStartsAndCannotBeTakenWhereOneListens() throws {
        let reserved = try ReservedAddress(host: "127.0.0.1", port: 0)
        let port = reserved.port
        #expect(port > 0)
        #expect(throws: SocketError.self, "bound, not listening: refused") {
            try Socket.connect(host: "127.0.0.1", port: port)
        }

        let live = server(port: 0)
        try live.start(on: reserved)
        defer {
            live.shutdown(deadline: .now() + .seconds(2))
            live.waitUntilStopped()
        }
        #expect(live.localPort == port)
        let client = try RawClient(port: port)
        try client.send(rawGet("/"))
        #expect(try client.readResponse().text == "ok")
        // Listening now: a second reservation or server on the address fails.
        #expect(throws: SocketError.self) { try ReservedAddress(host: "127.0.0.1", port: port) }
        #expect(throws: SocketError.self) { try server(port: port).start() }
    }

    @Test func aDroppedReservationLeavesTheAddressFree() throws {
        var port = 0
        do {
            let reserved = try ReservedAddress(host: "127.0.0.1", port: 0)
            port = reserved.port
        }
        let live = server(port: port)
        try live.start()
        defer {
            live.shutdown(deadline: .now() + .seconds(2))
            live.waitUntilStopped()
        }
        let client = try RawClient(port: port)
        try client.send(rawGet("/"))
        #expect(try client.readResponse().text == "ok")
    }
}
