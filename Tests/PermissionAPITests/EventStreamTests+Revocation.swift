import Foundation
import HTTPCore
import PermissionAPI
import PermissionDomain
import Testing

extension EventStreamTests {
    /// The status line and head of one request sent on its own connection (`Connection: close`).
    static func head(_ port: Int, _ method: String, _ target: String, key: String) throws -> String {
        let client = try StreamClient(
            port: port,
            request: "\(method) \(target) HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(key)\r\nConnection: close\r\n\r\n")
        try client.read(until: "\r\n\r\n")
        let text = client.text
        try client.close()
        return text
    }

    /// Reads to the end of the stream: its last chunk, then the server closing the connection.
    static func readToTheEnd(_ client: StreamClient) throws {
        try client.read(until: "\r\n0\r\n\r\n", limit: .seconds(3))
        var byte = [UInt8](repeating: 0, count: 1)
        let count = try byte.withUnsafeMutableBytes { try client.socket.read(into: $0.baseAddress!, count: 1) }
        #expect(count == 0, "the server closes the connection after the stream of a revoked key")
    }

    @Test func aStreamEndsWhenItsKeyIsRevokedAndSeesNothingAfter() throws {
        let live = try Live { $0.maxEventStreams = 1 }
        defer { live.stop() }
        let port = live.server.localPort
        let auditor = try live.app.storeKey(role: .auditor)
        let client = try StreamClient(port: port, request: Self.get("/v1/events", key: auditor.secret))
        try client.read(until: ": connected\n\n")
        try live.app.set("camera", #"{"status":"denied"}"#)  // seq 1
        try client.read(until: "id: 1\n")

        let deleted = try Self.head(port, "DELETE", "/v1/keys/\(auditor.id.rawValue)", key: live.app.adminKey)
        #expect(deleted.hasPrefix("HTTP/1.1 204"))
        // Committed after the 204: the revoked key must never see it.
        try live.app.set("camera", #"{"status":"authorized","level":"full"}"#)
        let after = try live.app.lastSeq()
        try Self.readToTheEnd(client)
        #expect(!client.text.contains("id: \(after)\n"), "an entry committed after the revocation was delivered")
        try client.close()

        // The slot is free again: the one stream allowed opens (the slot goes when the stream's
        // response is released, just after the connection closed).
        let deadline = ContinuousClock.now + .seconds(3)
        var status = ""
        repeat {
            let next = try StreamClient(port: port, request: live.get("/v1/events"))
            try next.read(until: "\r\n\r\n")
            status = String(next.text.prefix(12))
            try next.close()
        } while status != "HTTP/1.1 200" && ContinuousClock.now < deadline
        #expect(status == "HTTP/1.1 200")
        #expect(try Self.head(port, "GET", "/v1/events", key: auditor.secret).hasPrefix("HTTP/1.1 401"))
    }

    /// A client that closes its idle stream frees the stream's slot (and its key's) within a
    /// poll interval, not at the next heartbeat (60 s here), so a backend that reconnects after
    /// a network blip does not meet the per-key cap.
    @Test func aClientThatLeavesFreesItsSlotBeforeTheNextHeartbeat() throws {
        let live = try Live {
            $0.eventsHeartbeat = .seconds(60)
            $0.maxEventStreamsPerKey = 1
        }
        defer { live.stop() }
        let port = live.server.localPort
        let auditor = try live.app.storeKey(role: .auditor)
        let first = try StreamClient(port: port, request: Self.get("/v1/events", key: auditor.secret))
        try first.read(until: ": connected\n\n")
        #expect(live.app.application.openEventStreams == 1)
        try first.close()

        let deadline = ContinuousClock.now + .seconds(5)
        while live.app.application.openEventStreams > 0, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(live.app.application.openEventStreams == 0, "the slot is freed long before the 60 s heartbeat")
        // The key's one stream opens again.
        let second = try StreamClient(port: port, request: Self.get("/v1/events", key: auditor.secret))
        try second.read(until: ": connected\n\n")
        #expect(second.text.hasPrefix("HTTP/1.1 200"))
        try second.close()
    }
}
