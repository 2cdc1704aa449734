import Foundation
import HTTPCore
import Testing

/// Live timeouts: slowloris heads and clients that stop reading (RFC 9112 §9.5, §9.6).
@Suite struct ServerTimeoutTests {
    @Test func slowlorisHeadGets408ThenClose() throws {
        let live = try LiveServer(adjust: { $0.headerTimeout = .milliseconds(400) }) { router in
            router.get("/") { _, _ in textResponse("hi") }
        }
        defer { live.stop() }
        let client = try live.client()
        let started = Date()
        let head = Array("GET / HTTP/1.1\r\nHost: t\r\nX-Slow: ".utf8)
        // Dribble one byte every 100 ms: each arrives well within any per-read timer, but the
        // whole head does not arrive within headerTimeout.
        var response: RawResponse? = nil
        for byte in head + Array(repeating: UInt8(ascii: "a"), count: 20) {
            do {
                try client.send([byte])
            } catch {
                break  // the server already closed its side
            }
            Thread.sleep(forTimeInterval: 0.1)
            if Date().timeIntervalSince(started) > 0.7 { break }
        }
        response = try client.readResponse()
        #expect(response?.status == 408)
        #expect(response?.headers["Connection"] == "close")
        #expect(response?.headers["Content-Type"] == "application/problem+json")
        #expect(try client.isClosedByPeer())
        #expect(Date().timeIntervalSince(started) < 3)
    }

    @Test func idleKeepAliveConnectionIsClosedSilently() throws {
        let live = try LiveServer(adjust: { $0.idleTimeout = .milliseconds(300) }) { router in
            router.get("/") { _, _ in textResponse("hi") }
        }
        defer { live.stop() }
        let client = try live.client()
        try client.send(rawGet("/"))
        #expect(try client.readResponse().text == "hi")
        let started = Date()
        #expect(try client.isClosedByPeer())
        #expect(client.unreadBytes == 0)
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test func slowBodyGets408() throws {
        let live = try LiveServer(adjust: { $0.bodyTimeout = .milliseconds(300) }) { router in
            router.post("/") { request, _ in textResponse("\(request.body.count)") }
        }
        defer { live.stop() }
        let client = try live.client()
        try client.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(response.text.contains("\"status\":408"))
    }

    @Test func clientThatNeverReadsIsDroppedAndOthersAreServed() throws {
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        let live = try LiveServer(adjust: {
            $0.writeTimeout = .milliseconds(500)
            $0.maxBufferedOutputBytes = 128 * 1024
        }) { router in
            router.get("/big") { _, _ in
                HTTPResponse(
                    body: .stream { writer in
                        for _ in 0..<4096 { try writer.write(chunk) }  // 256 MiB if it were read
                    })
            }
            router.get("/small") { _, _ in textResponse("ok") }
        }
        defer { live.stop() }
        let stuck = try live.client()
        try stuck.socket.setReceiveBufferSize(4096)
        try stuck.send(rawGet("/big"))
        Thread.sleep(forTimeInterval: 0.2)
        // While the stream is blocked on the stuck client, another connection is answered.
        let other = try live.client()
        let started = Date()
        try other.send(rawGet("/small"))
        #expect(try other.readResponse().text == "ok")
        #expect(Date().timeIntervalSince(started) < 1)
        // The server gives up on the stuck client and aborts the connection (RST), so reading
        // ends, by reset or EOF, well short of the 256 MiB the handler meant to send.
        Thread.sleep(forTimeInterval: 1.0)
        var received = 0
        var chunkBuffer = [UInt8](repeating: 0, count: 65536)
        var ended = false
        let readStarted = Date()
        while Date().timeIntervalSince(readStarted) < 10 {
            do {
                let n = try chunkBuffer.withUnsafeMutableBytes { try stuck.socket.read(into: $0.baseAddress!, count: $0.count) }
                guard let n else { break }  // receive timeout: the server did not end it
                if n == 0 {
                    ended = true
                    break
                }
                received += n
            } catch {
                ended = true  // ECONNRESET from the abort
                break
            }
        }
        #expect(ended)
        #expect(received < 64 * 1024 * 1024)
    }

    /// A client that reads steadily, but slower than the server writes, is not dropped by the
    /// write timeout: Linux reports the socket writable only once a third of its (large,
    /// self-tuned) send buffer is free, which took longer than the timeout, and the server took
    /// the silence for a client that stopped. The bytes the client's kernel acknowledges say it
    /// reads. For a whole answer (sent by the loop) and a streamed one (by a worker).
    ///
    /// The timeout is 2 s, not less: on a loaded machine the loopback receiver drops segments
    /// its queue cannot take (`TcpExtTCPRcvQDrop`), and the sender's retransmissions back off
    /// (0.2, 0.4, 0.8 s...) past a second with nothing acknowledged, which no reader can help.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func slowButSteadyReaderIsNotDropped() throws {
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        let chunks = 96  // 6 MiB
        let whole = [UInt8](repeating: UInt8(ascii: "x"), count: chunks * chunk.count)
        let live = try LiveServer(adjust: { $0.writeTimeout = .seconds(2) }) { router in
            router.get("/whole") { _, _ in HTTPResponse(body: .bytes(whole)) }
            router.get("/stream") { _, _ in
                HTTPResponse(body: .stream { writer in for _ in 0..<chunks { try writer.write(chunk) } })
            }
        }
        defer { live.stop() }
        for path in ["/whole", "/stream"] {
            let client = try live.client()
            try client.send(rawGet(path))
            var buffer = [UInt8](repeating: 0, count: 4096)
            var received = 0
            var failure: String?
            let started = Date()
            // About 150-400 KB/s for 6 s: the write timeout passes three times meanwhile.
            while Date().timeIntervalSince(started) < 6, failure == nil {
                do {
                    let n = try buffer.withUnsafeMutableBytes { try client.socket.read(into: $0.baseAddress!, count: $0.count) }
                    guard let n, n > 0 else {
                        failure = "ended after \(received) bytes"
                        break
                    }
                    received += n
                } catch {
                    failure = "\(error) after \(received) bytes"
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
            #expect(failure == nil, "\(path): the server dropped a client that was reading: \(failure ?? "")")
            #expect(received > 0 && received < chunks * chunk.count, "\(path): \(received) bytes in 6 s")
        }
    }
}
