/// What remains to be sent after a response head was serialized.
package enum HTTPResponseBodyAction {
    /// Nothing: the head (and any byte body) is already in the output buffer.
    case done
    /// Run the stream closure; `chunked` tells whether each write becomes one chunk
    /// (HTTP/1.1) or raw bytes delimited by closing the connection (HTTP/1.0).
    case stream(@Sendable (any HTTPBodyWriter) throws -> Void, chunked: Bool)
}

/// Serializes responses into the connection's output buffer: status line (always HTTP/1.1),
/// fields, `Date`, framing and `Connection` (RFC 9112 §4, §6.1, §6.3, §9.3), and a byte body,
/// so head and body leave in one `send`.
package struct HTTPResponseWriter {
    private var date = HTTPResponseDate()
    private let serverField: [UInt8]?

    /// - Parameter serverName: the `Server` field value, or nil to send none.
    package init(serverName: String?) {
        serverField = serverName.map { Array("Server: \($0)\r\n".utf8) }
    }

    /// Appends the head (and a byte body) of `response` to `out`.
    /// - Parameters:
    ///   - response: what the handler returned; its framing fields are replaced by the engine's.
    ///   - isHead: the request was HEAD: send the fields GET would, no body (RFC 9110 §9.3.2).
    ///   - version: the request's version; an HTTP/1.0 stream is close-delimited.
    ///   - keepAlive: whether the connection stays open; false sends `Connection: close`.
    /// - Returns: what to send after the head.
    package mutating func write(
        _ response: HTTPResponse, isHead: Bool, version: HTTPVersion, keepAlive: Bool, into out: inout [UInt8]
    ) -> HTTPResponseBodyAction {
        let status = response.status
        var keepAlive = keepAlive
        var action = HTTPResponseBodyAction.done
        var bodyBytes: [UInt8]? = nil
        var lengthField: Int? = nil
        var chunked = false

        if status.allowsBody {
            switch response.body {
            case .bytes(let bytes):
                lengthField = bytes.count
                if !isHead { bodyBytes = bytes }
            case .stream(let writer):
                if version == .http1_0 {
                    keepAlive = false  // RFC 9112 §6.3 ¶8: close-delimited for a 1.0 recipient
                } else {
                    chunked = true
                }
                if !isHead { action = .stream(writer, chunked: chunked) }
            }
        }

        // The head is written into a scratch buffer sized for the longest it can be and appended
        // in one copy: appending its twenty-odd pieces to the array one by one (a capacity and
        // uniqueness check each) cost more than the bytes.
        let fields = response.headers.fields
        var bound = 32 + status.reason.utf8.count + (serverField?.count ?? 0) + 160
        // By index, not `for field in`: reading a field in place skips a retain and a release of
        // its two strings per loop.
        for i in fields.indices { bound += fields[i].name.utf8.count + fields[i].value.utf8.count + 4 }
        out.reserveCapacity(out.count + bound + (bodyBytes?.count ?? 0))
        let dateBytes = date.bytes()
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { buffer in
            var head = ByteCursor(buffer)
            Self.writeStatusLine(status, to: &head)
            for i in fields.indices where !Self.isEngineField(fields[i].name) {
                head.put(fields[i].name)
                head.put(0x3A)
                head.put(0x20)
                head.put(fields[i].value)
                head.put(0x0D)
                head.put(0x0A)
            }
            head.put(Self.dateName)
            head.put(dateBytes)
            head.put(0x0D)
            head.put(0x0A)
            if let serverField { head.put(serverField) }
            if let lengthField, status.code != 304 {
                head.put(Self.contentLengthName)
                head.putDecimal(lengthField)
                head.put(0x0D)
                head.put(0x0A)
            }
            if chunked { head.put(Self.chunkedField) }
            if !keepAlive {
                head.put(Self.closeField)
            } else if version == .http1_0 {
                head.put(Self.keepAliveField)
            }
            head.put(0x0D)
            head.put(0x0A)
            out.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress, count: head.count))
        }
        if let bodyBytes { out.append(contentsOf: bodyBytes) }
        return action
    }

    /// Appends `HTTP/1.1 100 Continue` (RFC 9110 §15.2.1) to `out`.
    package static func appendContinue(to out: inout [UInt8]) {
        out.append(contentsOf: continueLine)
    }

    /// Fields the engine owns: a handler's values are dropped so framing stays consistent.
    static func isEngineField(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: name.equalsIgnoringASCIICase("Date")
        case 10: name.equalsIgnoringASCIICase("Connection") || name.equalsIgnoringASCIICase("Keep-Alive")
        case 14: name.equalsIgnoringASCIICase("Content-Length")
        case 17: name.equalsIgnoringASCIICase("Transfer-Encoding")
        default: false
        }
    }

    private static func writeStatusLine(_ status: HTTPStatus, to head: inout ByteCursor) {
        if status.code == 200, status.reason == "OK" {
            head.put(okLine)
            return
        }
        head.put(versionPrefix)
        head.putDecimal(status.code)
        head.put(0x20)
        // The reason is sent as given minus CR/LF, which could split the head (RFC 9112 §4).
        for byte in status.reason.utf8 where byte != 0x0D && byte != 0x0A { head.put(byte) }
        head.put(0x0D)
        head.put(0x0A)
    }

    /// Appends a non-negative integer in decimal without allocating a String.
    package static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(0x30 + max(value, 0)))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var v = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while v > 0 {
                buffer[count] = UInt8(0x30 + v % 10)
                v /= 10
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[i]) }
        }
    }

    private static let okLine = Array("HTTP/1.1 200 OK\r\n".utf8)
    private static let versionPrefix = Array("HTTP/1.1 ".utf8)
    private static let dateName = Array("Date: ".utf8)
    private static let contentLengthName = Array("Content-Length: ".utf8)
    private static let chunkedField = Array("Transfer-Encoding: chunked\r\n".utf8)
    private static let closeField = Array("Connection: close\r\n".utf8)
    private static let keepAliveField = Array("Connection: keep-alive\r\n".utf8)
    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}

/// Writes into memory whose size was worked out beforehand (a response head).
struct ByteCursor {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = buffer.baseAddress!
        capacity = buffer.count
    }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        precondition(count < capacity, "response head larger than its bound")
        base[count] = byte
        count += 1
    }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(count + bytes.count <= capacity, "response head larger than its bound")
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    mutating func put(_ text: String) {
        // In place for native strings: `withUTF8` on a copy costs a retain and a release.
        if text.utf8.withContiguousStorageIfAvailable({ put($0) }) == nil {
            var text = text
            text.withUTF8 { put($0) }
        }
    }

    /// A non-negative integer in decimal.
    mutating func putDecimal(_ value: Int) {
        var v = max(value, 0)
        let start = count
        repeat {
            put(UInt8(0x30 + v % 10))
            v /= 10
        } while v > 0
        var low = start
        var high = count - 1
        while low < high {
            let digit = base[low]
            base[low] = base[high]
            base[high] = digit
            low += 1
            high -= 1
        }
    }
}
