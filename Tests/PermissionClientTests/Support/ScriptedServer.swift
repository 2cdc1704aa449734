import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on a real loopback socket (127.0.0.1, port 0) whose answers a test
/// scripts: well-formed responses, stalls, responses cut in the middle, malformed JSON, raw
/// bytes, a peer that goes silent, or a bare close. It serves each connection on its own thread, keeps connections alive, records
/// every request, and closes everything in `stop()`.
final class ScriptedServer: @unchecked Sendable {
    /// What the server does with one request.
    enum Action: Sendable {
        case respond(status: Int, headers: [(String, String)], body: String)
        /// Sends the head announcing `announced` bytes, then `sent` of them, then closes.
        case cut(announced: Int, sent: String)
        /// Reads the request and never answers (until `stop()`).
        case stall
        /// Closes the connection without a byte.
        case close
        /// Sends these bytes as they are (a head and any body, framed or not), then closes.
        case raw(String)
        /// Sends these bytes as they are, then sends nothing more and keeps the connection open
        /// until the client closes it (or `stop()`): a peer gone silent.
        case rawThenSilence(String)
    }

    struct Request: Sendable {
        var method: String
        var target: String
        var headers: [String: String]
        var body: String
        /// The connection it came on (1-based, in accept order).
        var connection: Int
        /// When its head had been read.
        var at = ContinuousClock.now
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var recorded: [Request] = []
    private var connections: [Int32] = []
    private var stopped = false
    private let script: @Sendable (Request, Int) -> Action

    /// - Parameter script: the action for a request, given it and its 0-based index overall.
    init(script: @escaping @Sendable (Request, Int) -> Action) throws {
        self.script = script
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far.
    var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    /// The connections open now (accepted, not yet closed by either side).
    var openConnections: Int {
        lock.lock()
        defer { lock.unlock() }
        return connections.count
    }

    /// Closes the listener and every connection (which also ends stalls).
    func stop() {
        // Only shutdown here: each descriptor is closed by the thread that owns it, so that a
        // number reused by another test's socket is never touched.
        lock.lock()
        stopped = true
        for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
        shutdown(listener, Int32(SHUT_RDWR))
        lock.unlock()
    }

    private func acceptLoop() {
        var count = 0
        defer { close(listener) }
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            lock.lock()
            if stopped {
                lock.unlock()
                close(fd)
                return
            }
            connections.append(fd)
            lock.unlock()
            count += 1
            let number = count
            let thread = Thread { [self] in serve(fd, connection: number) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32, connection: Int) {
        defer {
            lock.lock()
            connections.removeAll { $0 == fd }
            close(fd)
            lock.unlock()
        }
        var buffer: [UInt8] = []
        while let request = readRequest(fd, buffer: &buffer, connection: connection) {
            lock.lock()
            let index = recorded.count
            recorded.append(request)
            lock.unlock()
            switch script(request, index) {
            case .respond(let status, let headers, let body):
                var head = "HTTP/1.1 \(status) \(status < 400 ? "OK" : "Error")\r\nContent-Length: \(body.utf8.count)\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                guard send(fd, head + "\r\n" + body) else { return }
            case .cut(let announced, let sent):
                _ = send(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(announced)\r\n\r\n" + sent)
                return
            case .stall:
                var byte: UInt8 = 0
                _ = recv(fd, &byte, 1, 0)
                return
            case .close:
                return
            case .raw(let bytes):
                _ = send(fd, bytes)
                return
            case .rawThenSilence(let bytes):
                guard send(fd, bytes) else { return }
                var byte: UInt8 = 0
                _ = recv(fd, &byte, 1, 0)
                return
            }
        }
    }

    private func send(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    private func readRequest(_ fd: Int32, buffer: inout [UInt8], connection: Int) -> Request? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if let range = buffer.firstRange(of: terminator) {
                headEnd = range.upperBound
                break
            }
            guard receive(fd, into: &buffer) else { return nil }
        }
        guard let end = headEnd else { return nil }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count < end + length {
            guard receive(fd, into: &buffer) else { return nil }
        }
        let body = String(decoding: buffer[end..<(end + length)], as: UTF8.self)
        buffer.removeFirst(end + length)
        return Request(
            method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body,
            connection: connection)
    }

    private func receive(_ fd: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[..<n])
        return true
    }
}

extension ScriptedServer.Action {
    /// A JSON answer with a request id echo.
    static func json(_ status: Int, _ body: String, requestId: String = "srv-1") -> Self {
        .respond(status: status, headers: [("Content-Type", "application/json"), ("X-Request-Id", requestId)], body: body)
    }

    /// A problem+json answer (RFC 9457).
    static func problem(_ status: Int, slug: String, detail: String, requestId: String = "srv-1") -> Self {
        let body = """
            {"detail":"\(detail)","requestId":"\(requestId)","status":\(status),\
            "title":"t","type":"https://permissions.example/problems/\(slug)"}
            """
        return .respond(
            status: status, headers: [("Content-Type", "application/problem+json"), ("X-Request-Id", requestId)],
            body: body)
    }

    /// A well-formed authorization body.
    static func authorization(status: String, level: String? = nil) -> Self {
        .json(200, authorizationBody(status: status, level: level))
    }

    /// The JSON of a well-formed authorization.
    static func authorizationBody(status: String, level: String? = nil) -> String {
        let levelMember = level.map { "\"level\":\"\($0)\"," } ?? ""
        return """
            {"app":"com.example.maps","expiresAt":null,\(levelMember)"once":false,"provisional":false,\
            "purpose":null,"reason":"userConsent","service":"location","status":"\(status)",\
            "updatedAt":"2026-11-22T10:00:00.000Z","user":"u42","version":3}
            """
    }
}
