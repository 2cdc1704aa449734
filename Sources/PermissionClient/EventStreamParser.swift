/// An incremental parser of `text/event-stream` (HTML Living Standard §9.2.6): feed it bytes
/// as they arrive; it returns each dispatched event (`id`, `event`, the joined `data` lines).
/// Comment lines (`: keep-alive`) and unknown fields are skipped; a byte order mark that opens
/// the stream is dropped (the standard decodes it as UTF-8, which strips one), and an `id`
/// holding U+0000 is ignored, as the standard says.
struct EventStreamParser {
    struct Event: Equatable {
        var id: String?
        var type: String
        var data: String
    }

    /// The longest line kept; a longer one is a broken stream.
    static let maxLineBytes = 1 << 20
    /// The largest event kept (its `data` lines together); a larger one is a broken stream,
    /// so that a feed that never ends its event cannot grow without bound.
    static let maxEventBytes = 1 << 20

    /// UTF-8's byte order mark.
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// How many bytes of a byte order mark opened the stream so far; nil once its first bytes
    /// are past (a mark, or the start of a line).
    private var markMatched: Int? = 0
    private var line: [UInt8] = []
    private var lastWasCR = false
    private var data: [String] = []
    private var dataBytes = 0
    private var id: String?
    private var type = ""

    /// Whether a line went over `maxLineBytes`, or an event over `maxEventBytes`.
    private(set) var overflowed = false
    /// The comment lines read so far (the server's `: connected` and `: keep-alive`).
    private(set) var comments = 0

    /// Consumes `bytes`.
    /// - Returns: the events completed by them, in order.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            guard !overflowed else { break }
            if let matched = markMatched {
                if byte == Self.byteOrderMark[matched] {
                    markMatched = matched + 1 == Self.byteOrderMark.count ? nil : matched + 1
                    continue
                }
                // Not a mark after all: what matched of it is the line's.
                markMatched = nil
                for earlier in Self.byteOrderMark[..<matched] { take(earlier, into: &events) }
            }
            take(byte, into: &events)
        }
        return events
    }

    private mutating func take(_ byte: UInt8, into events: inout [Event]) {
        guard !overflowed else { return }
        if byte == 0x0A, lastWasCR {
            lastWasCR = false
            return
        }
        lastWasCR = byte == 0x0D
        if byte == 0x0A || byte == 0x0D {
            if let event = endLine() { events.append(event) }
        } else if line.count < Self.maxLineBytes {
            line.append(byte)
        } else {
            overflowed = true
        }
    }

    private mutating func endLine() -> Event? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            defer {
                data = []
                dataBytes = 0
                type = ""
            }
            guard !data.isEmpty else { return nil }
            return Event(id: id, type: type.isEmpty ? "message" : type, data: data.joined(separator: "\n"))
        }
        guard line[0] != UInt8(ascii: ":") else {
            comments += 1
            return nil
        }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let name = String(decoding: line[..<colon], as: UTF8.self)
        var valueStart = colon < line.endIndex ? colon + 1 : colon
        if valueStart < line.endIndex, line[valueStart] == 0x20 { valueStart += 1 }
        let value = String(decoding: line[valueStart...], as: UTF8.self)
        switch name {
        case "data":
            dataBytes += value.utf8.count + 1
            guard dataBytes <= Self.maxEventBytes else {
                overflowed = true
                return nil
            }
            data.append(value)
        case "id" where !value.utf8.contains(0): id = value
        case "event": type = value
        default: break
        }
        return nil
    }
}
