import ByteText

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
    ///   - keepAlive: whether the connection stays open; false sends `Connection: close`. Set
    ///     to false when the response's framing ends the connection (a stream to an HTTP/1.0
    ///     client, whose head says so to a HEAD as well), which the caller must then close.
    /// - Returns: what to send after the head.
    package mutating func write(
        _ response: HTTPResponse, isHead: Bool, version: HTTPVersion, keepAlive: inout Bool, into out: inout [UInt8]
    ) -> HTTPResponseBodyAction {
        let status = response.status
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
            case .deferred:
                preconditionFailure("a deferred response is sent once it completes, never as it is")
            }
        }

        // The head is written in place, into room measured from the very writes below (see
        // `ByteCursor`), and appended in one copy with room kept for the body: appending its
        // twenty-odd pieces to the array one by one (a capacity and uniqueness check each) cost
        // more than the bytes.
        // The response is handed to the body, not captured (a capture would copy it).
        let dateBytes = date.bytes()
        ByteCursor.append(to: &out, reservingAfter: bodyBytes?.count ?? 0, response) { response, head in
            Self.writeStatusLine(response.status, to: &head)
            let fields = response.headers.fields
            // By index, not `for field in`: reading a field in place skips a retain and a
            // release of its two strings per loop.
            for i in fields.indices where !Self.isEngineField(fields[i].name) {
                // A handler's field cannot split the head (RFC 9110 §5.1, §5.5): one whose name
                // is no token is left out; a value's control characters other than HTAB (CR and
                // LF among them) go out as spaces.
                guard Self.isToken(fields[i].name) else { continue }
                head.text(fields[i].name)
                head.literal(": ")
                if Self.isFieldValue(fields[i].value) {
                    head.text(fields[i].value)
                } else {
                    for byte in fields[i].value.utf8 { head.put(Self.isControl(byte) ? UInt8(ascii: " ") : byte) }
                }
                head.literal("\r\n")
            }
            head.literal("Date: ")
            head.put(dateBytes)
            head.literal("\r\n")
            if let serverField { head.put(serverField) }
            if let lengthField, response.status.code != 304 {
                head.literal("Content-Length: ")
                head.decimal(Int64(lengthField))
                head.literal("\r\n")
            }
            if chunked { head.literal("Transfer-Encoding: chunked\r\n") }
            if !keepAlive {
                head.literal("Connection: close\r\n")
            } else if version == .http1_0 {
                head.literal("Connection: keep-alive\r\n")
            }
            head.literal("\r\n")
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

    /// Whether `name` is a field name: a token (RFC 9110 §5.1, §5.6.2).
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
                    UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
                    UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                    true
                default: false
                }
            }
    }

    /// A control character a field value may not hold: all but HTAB, and DEL (RFC 9110 §5.5).
    static func isControl(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x09) || byte == 0x7F }

    /// Whether `value` may go out as it is: no ``isControl(_:)`` byte.
    static func isFieldValue(_ value: String) -> Bool { !value.utf8.contains(where: isControl) }

    private static func writeStatusLine(_ status: HTTPStatus, to head: inout ByteCursor) {
        if status.code == 200, status.reason == "OK" {
            head.literal("HTTP/1.1 200 OK\r\n")
            return
        }
        head.literal("HTTP/1.1 ")
        head.decimal(Int64(status.code))
        head.literal(" ")
        // The reason is sent as given minus CR/LF, which could split the head, and with other
        // control characters as spaces (RFC 9112 §4: HTAB, SP, VCHAR, obs-text).
        for byte in status.reason.utf8 where byte != 0x0D && byte != 0x0A {
            head.put(isControl(byte) ? UInt8(ascii: " ") : byte)
        }
        head.literal("\r\n")
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}
