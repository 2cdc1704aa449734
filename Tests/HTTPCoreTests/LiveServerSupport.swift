import Dispatch
import Foundation
import HTTPCore
import Logging

/// A server bound to 127.0.0.1:0 for one live test; `stop()` shuts it down and waits.
struct LiveServer {
    let server: HTTPServer
    var port: Int { server.localPort }

    /// Starts `responder` (or a router built by `build`) with `adjust` applied to a test configuration.
    init(responder: any HTTPResponder, adjust: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
        var config = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        config.sweepInterval = .milliseconds(50)
        config.shutdownGracePeriod = .seconds(3)
        adjust(&config)
        var logger = Logger(label: "test.server")
        // HTTPCORE_TEST_LOG=debug shows the engine's own log lines when a live test misbehaves.
        logger.logLevel =
            ProcessInfo.processInfo.environment["HTTPCORE_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        server = HTTPServer(configuration: config, responder: responder, logger: logger)
        try server.start()
    }

    init(adjust: (inout HTTPServerConfiguration) -> Void = { _ in }, routes: (inout Router) -> Void) throws {
        var router = Router()
        routes(&router)
        try self.init(responder: router.buildResponder(), adjust: adjust)
    }

    func client(from source: String? = nil) throws -> RawClient { try RawClient(port: port, from: source) }

    func stop() {
        server.shutdown(deadline: .now() + .seconds(2))
        server.waitUntilStopped()
    }
}

/// A parsed response as a raw client reads it.
struct RawResponse {
    var status: Int
    /// The status line's reason phrase, as sent.
    var reason = ""
    var headers: HTTPHeaders
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

enum RawClientError: Error { case timedOut, closed, malformed(String) }

/// A blocking TCP client with bounded reads (SO_RCVTIMEO) that reads HTTP/1.1 responses.
final class RawClient {
    let socket: Socket
    private var buffer: [UInt8] = []

    /// - Parameter source: the local address to connect from (any of 127/8), or nil for 127.0.0.1.
    init(port: Int, from source: String? = nil, timeoutMilliseconds: Int = 5000) throws {
        socket = try Socket.connect(host: "127.0.0.1", port: port, from: source)
        try socket.setTimeouts(milliseconds: timeoutMilliseconds)
    }

    deinit { _ = try? socket.close() }

    func send(_ text: String) throws { try socket.sendAll(Array(text.utf8)) }
    func send(_ bytes: [UInt8]) throws { try socket.sendAll(bytes) }

    /// Reads more bytes; false at end of stream. Throws `timedOut` after the socket timeout.
    @discardableResult
    func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = try chunk.withUnsafeMutableBytes { raw in try socket.read(into: raw.baseAddress!, count: raw.count) }
        guard let n else { throw RawClientError.timedOut }
        if n == 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads one response; `isHead` (or a 1xx/204/304 status) means no body follows the head.
    func readResponse(isHead: Bool = false) throws -> RawResponse {
        var headEnd: Int? = nil
        while headEnd == nil {
            headEnd = Self.find([13, 10, 13, 10], in: buffer)
            if headEnd == nil, try !fill() { throw RawClientError.closed }
        }
        let headText = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let firstLine = lines.removeFirst()
        let statusLine = firstLine.split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawClientError.malformed(headText) }
        let reason =
            firstLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).dropFirst(2).first
            .map(String.init) ?? ""
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw RawClientError.malformed(line) }
            headers.add(
                name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body: [UInt8] = []
        if isHead || status < 200 || status == 204 || status == 304 {
            // no content
        } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            while buffer.count < length { if try !fill() { throw RawClientError.closed } }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else if headers["Transfer-Encoding"] == "chunked" {
            while true {
                var lineEnd = Self.find([13, 10], in: buffer)
                while lineEnd == nil {
                    if try !fill() { throw RawClientError.closed }
                    lineEnd = Self.find([13, 10], in: buffer)
                }
                let size = Int(String(decoding: buffer[0..<lineEnd!], as: UTF8.self), radix: 16) ?? -1
                guard size >= 0 else { throw RawClientError.malformed("chunk size") }
                buffer.removeFirst(lineEnd! + 2)
                while buffer.count < size + 2 { if try !fill() { throw RawClientError.closed } }
                body.append(contentsOf: buffer[0..<size])
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else {
            while try fill() {}
            body = buffer
            buffer = []
        }
        return RawResponse(status: status, reason: reason, headers: headers, body: body)
    }

    /// True when the server closed the connection (EOF) with nothing more to read.
    func isClosedByPeer() throws -> Bool {
        while try fill() {}
        return true
    }

    var unreadBytes: Int { buffer.count }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }
}

/// A request as raw text.
func rawGet(_ path: String, _ extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n"
}

/// A text response.
func textResponse(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
    HTTPResponse(status: status, contentType: "text/plain", body: Array(text.utf8))
}
