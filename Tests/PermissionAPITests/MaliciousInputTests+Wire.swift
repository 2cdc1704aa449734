import Foundation
import HTTPCore
import PermissionAPI
import Testing

/// Hostile bytes that only exist on the wire: a raw request through a real `HTTPServer` on
/// 127.0.0.1:0. The request target must be visible ASCII (RFC 9112 §3.2, RFC 3986 §2), so
/// raw invalid UTF-8, NUL or a space there gets 400 and the connection closes.
extension MaliciousInputTests {
    static let rawTargets: [[UInt8]] = [
        Array("/v1/users/u".utf8) + [0xFF, 0xFE] + Array("/apps/com.example.maps/authorizations/camera/revoke".utf8),
        Array("/v1/users/u".utf8) + [0xC0, 0xAF] + Array("/apps/com.example.maps/authorizations/camera/revoke".utf8),
        Array("/v1/users/u42".utf8) + [0x00] + Array("/apps/com.example.maps/authorizations/camera/revoke".utf8),
        Array("/v1/users/u42/apps/com.example.maps/authorizations/camera/revoke".utf8) + [0x0B],
        Array("/v1/users/u4 2/apps/com.example.maps/authorizations/camera/revoke".utf8),
    ]

    @Test(arguments: rawTargets)
    func rawHostileTargetIsRefusedOnTheWire(_ target: [UInt8]) throws {
        let live = try EventStreamTests.Live()
        defer { live.stop() }
        try live.app.registerApp()
        try live.app.set("camera", #"{"status":"authorized","level":"full"}"#)
        let before = try live.app.lastSeq()
        let socket = try Socket.connect(host: "127.0.0.1", port: live.server.localPort)
        defer {
            do { try socket.close() } catch { Issue.record("close: \(error)") }
        }
        try socket.setTimeouts(milliseconds: 3000)
        try socket.sendAll(Array("POST ".utf8) + target + Array(" HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n".utf8))
        var received: [UInt8] = []
        while true {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = try chunk.withUnsafeMutableBytes { raw -> Int? in
                guard let base = raw.baseAddress else { return 0 }
                return try socket.read(into: base, count: raw.count)
            }
            guard let count, count > 0 else { break }  // closed (or timed out)
            received.append(contentsOf: chunk[0..<count])
        }
        let text = String(decoding: received, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 400 "), "\(text)")
        #expect(text.lowercased().contains("connection: close"))
        #expect(try live.app.lastSeq() == before)
        #expect(try live.app.authorization("camera").status == .authorized)
    }
}
