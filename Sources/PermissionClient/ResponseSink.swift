/// Where libcurl's callbacks put a response: the body (bounded), the status code from the
/// status line and the header fields the SDK uses (RFC 9112 §4, §5). One per easy handle, used
/// by one thread at a time; a streaming call hands 2xx body bytes to `stream` instead, and may
/// give up on a transfer that goes without a byte for `idleLimit`.
final class ResponseSink {
    /// The largest body kept in memory; a larger one aborts the call (CURLE_WRITE_ERROR).
    static let maxBodyBytes = 16 << 20

    private(set) var body: [UInt8] = []
    private(set) var status = 0
    private(set) var requestId: String?
    private(set) var etag: String?
    private(set) var contentType: String?
    /// `Content-Length`, when the answer announced one (RFC 9110 §8.6).
    private(set) var contentLength: Int64?
    /// `Retry-After` as sent (RFC 9110 §10.2.3), read by the caller.
    private(set) var retryAfter: String?
    /// `Permission-Revision`: the audit seq a write made, or the state a read reports, includes.
    private(set) var revision: Int64?
    /// Set when `stream` asked to stop: the abort that follows is not an error.
    private(set) var stoppedByConsumer = false
    /// Set when the body went over `maxBodyBytes`.
    private(set) var overflowed = false
    /// Set when the progress callback gave up after `idleLimit` without a byte.
    private(set) var idledOut = false
    var cancel: CancellationFlag?
    var stream: ((UnsafeRawBufferPointer) -> Bool)?
    /// The media type a 2xx body must have to be handed to `stream`, if any.
    private(set) var streamType: String?
    /// The longest the transfer may go without receiving a byte (of the head or the body),
    /// counted from its start; `nil` for no limit.
    private(set) var idleLimit: Duration?
    private var lastByteAt = ContinuousClock.now

    /// Clears everything for the next call.
    func reset(
        cancel: CancellationFlag?, stream: ((UnsafeRawBufferPointer) -> Bool)?, streamType: String?, idleLimit: Duration?
    ) {
        body = []
        status = 0
        requestId = nil
        etag = nil
        contentType = nil
        contentLength = nil
        retryAfter = nil
        revision = nil
        stoppedByConsumer = false
        overflowed = false
        idledOut = false
        self.cancel = cancel
        self.stream = stream
        self.streamType = streamType
        self.idleLimit = idleLimit
        lastByteAt = ContinuousClock.now
    }

    /// From the progress callback (called at least about once a second, also while nothing
    /// arrives): whether to abort, because the call was cancelled or `idleLimit` passed
    /// without a byte (then `idledOut` is set).
    func shouldAbort() -> Bool {
        if cancel?.isCancelled ?? false { return true }
        guard let idleLimit, ContinuousClock.now - lastByteAt >= idleLimit else { return false }
        idledOut = true
        return true
    }

    /// Hands over the body without copying it.
    func takeBody() -> [UInt8] {
        defer { body = [] }
        return body
    }

    /// Body bytes from the write callback.
    /// - Returns: `false` to abort the transfer.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if idleLimit != nil { lastByteAt = ContinuousClock.now }
        if let stream, (200..<300).contains(status) {
            if let streamType {
                guard PermissionClient.isMediaType(contentType, streamType) else {
                    stoppedByConsumer = true  // not the stream's to take: the caller sees the type
                    return false
                }
                self.streamType = nil  // checked once, at the first chunk
            }
            let goOn = stream(bytes)
            // The time the consumer took with them is not the server's silence: the bytes sent
            // meanwhile wait in the socket, and the idle limit counts from here.
            if idleLimit != nil { lastByteAt = ContinuousClock.now }
            if goOn { return true }
            stoppedByConsumer = true
            return false
        }
        guard body.count + bytes.count <= Self.maxBodyBytes else {
            overflowed = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// One header line from the header callback (status line, field line or the empty line).
    /// A new status line (after `100 Continue`) starts the header fields over.
    func header(_ line: UnsafeRawBufferPointer) {
        if idleLimit != nil { lastByteAt = ContinuousClock.now }
        // A status line first: its reason phrase may hold a colon ("200 OK: streaming").
        if line.starts(with: "HTTP/".utf8) {
            startResponse(line)
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = line[..<colon]
        guard name.count <= 19 else { return }
        let value = Self.trimmed(line[(colon + 1)...])
        if Self.equalsIgnoringCase(name, "x-request-id") {
            requestId = value
        } else if Self.equalsIgnoringCase(name, "etag") {
            etag = value
        } else if Self.equalsIgnoringCase(name, "content-type") {
            contentType = value
        } else if Self.equalsIgnoringCase(name, "content-length") {
            contentLength = Int64(value)
        } else if Self.equalsIgnoringCase(name, "retry-after") {
            retryAfter = value
        } else if Self.equalsIgnoringCase(name, "permission-revision") {
            revision = Int64(value).flatMap { $0 >= 0 ? $0 : nil }
        }
    }

    private func startResponse(_ line: UnsafeRawBufferPointer) {
        requestId = nil
        etag = nil
        contentType = nil
        contentLength = nil
        retryAfter = nil
        revision = nil
        status = 0
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return }
        var code = 0
        var digits = 0
        for byte in line[(space + 1)...] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 3 else { break }
            code = code * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
        }
        status = digits == 3 ? code : 0
    }

    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        var slice = bytes[...]
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 || last == 0x0D || last == 0x0A { slice = slice.dropLast() }
        return String(decoding: slice, as: UTF8.self)
    }

    private static func equalsIgnoringCase(_ bytes: Slice<UnsafeRawBufferPointer>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for (byte, want) in zip(bytes, expected) where byte | 0x20 != want {
            return false
        }
        return true
    }
}
