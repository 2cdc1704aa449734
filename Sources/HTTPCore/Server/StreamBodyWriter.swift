#if canImport(Glibc)
import Glibc
#endif

/// The writer a streamed response body gets: each `write` becomes one chunk (RFC 9112 §7.1)
/// appended to the connection's output; `flush` sends it; past `maxBufferedOutputBytes` a write
/// blocks until the client reads, and throws once it stops reading for `writeTimeout`, or once
/// the bound `limitDuration(to:)` set has passed.
/// Valid only while the stream closure runs, on a worker thread that owns the connection's
/// output meanwhile (checked in debug builds).
final class StreamBodyWriter: HTTPBodyWriter {
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    unowned let connection: HTTPConnection
    let chunked: Bool
    var finished = false
    /// When the body must have been sent by (``MonotonicClock`` nanoseconds), and the bound it came from.
    private var deadline: (at: UInt64, limit: Duration)?
    /// Whether a write or flush threw ``StreamDeadlineExceeded``: the body is unfinished even
    /// if the stream closure caught that and returned.
    private(set) var ranPastDeadline = false

    init(connection: HTTPConnection, chunked: Bool) {
        self.connection = connection
        self.chunked = chunked
    }

    func write(_ bytes: [UInt8]) throws {
        guard !finished else { throw SocketError(operation: "write", code: 0, message: "the response has ended") }
        connection.assertWorkerOwnsOutput()
        try checkDeadline()
        guard !bytes.isEmpty else { return }  // an empty chunk would end the body
        if chunked {
            appendHex(bytes.count)
            connection.output.append(0x0D)
            connection.output.append(0x0A)
            connection.output.append(contentsOf: bytes)
            connection.output.append(0x0D)
            connection.output.append(0x0A)
        } else {
            connection.output.append(contentsOf: bytes)
        }
        let buffered = connection.output.count - connection.outputSent
        if buffered > connection.environment.configuration.maxBufferedOutputBytes {
            try flushBlocking()
        }
    }

    func flush() throws {
        guard !finished else { throw SocketError(operation: "flush", code: 0, message: "the response has ended") }
        try checkDeadline()
        try flushBlocking()
    }

    func limitDuration(to duration: Duration) {
        precondition(duration >= .zero, "a stream's time limit cannot be negative")
        let (at, overflow) = MonotonicClock.now().addingReportingOverflow(duration.nanoseconds)
        deadline = (overflow ? .max : at, duration)
    }

    private func checkDeadline() throws {
        guard let deadline, MonotonicClock.now() >= deadline.at else { return }
        ranPastDeadline = true
        throw StreamDeadlineExceeded(limit: deadline.limit)
    }

    private func flushBlocking() throws {
        do {
            try connection.flushBlocking(threshold: 0, deadline: deadline)
        } catch let error as StreamDeadlineExceeded {
            ranPastDeadline = true
            throw error
        }
    }

    /// A peek at the socket (`recv` with `MSG_PEEK | MSG_DONTWAIT`): end of file or an error
    /// other than "nothing yet" means the client is gone; bytes it sent stay unread.
    var isPeerGone: Bool {
        var byte: UInt8 = 0
        let count = recv(connection.socket.fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if count > 0 { return false }
        if count == 0 { return true }
        return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
    }

    private func appendHex(_ value: Int) {
        var shift = (Int.bitWidth - value.leadingZeroBitCount + 3) / 4 * 4 - 4
        while shift >= 0 {
            connection.output.append(Self.hexDigits[(value >> shift) & 0xF])
            shift -= 4
        }
    }
}
