package import Foundation

/// Writes one JSON document into memory reserved up front (`JSONWriter.write(into:bound:_:)`),
/// with the escaping of `JSONBytes`: for the hot path, where appending byte by byte to an array
/// (a capacity and uniqueness check each time) cost more than the bytes themselves.
package struct JSONWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Appends what `body` writes to `bytes`. `bound` must be at least what it writes (see
    /// ``bound(of:)``). An empty `bytes` becomes an array of `bound` capacity written in place;
    /// otherwise the memory is reserved, filled, and trimmed to what was written.
    @inline(__always)  // so `body` is inlined too and its captures are not copied into a context
    package static func write(into bytes: inout [UInt8], bound: Int, _ body: (inout JSONWriter) -> Void) {
        if bytes.isEmpty {
            // The common case (one document per buffer): written into uninitialized memory,
            // without filling it first and trimming after.
            bytes = [UInt8](unsafeUninitializedCapacity: max(bound, 1)) { buffer, initialized in
                var writer = JSONWriter(base: buffer.baseAddress!, capacity: bound)
                body(&writer)
                initialized = writer.count
            }
            return
        }
        let start = bytes.count
        bytes.reserveCapacity(start + bound)
        bytes.append(contentsOf: repeatElement(0, count: bound))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int in
            var writer = JSONWriter(base: buffer.baseAddress! + start, capacity: bound)
            body(&writer)
            return writer.count
        }
        bytes.removeLast(bound - written)
    }

    /// The most `string(_:)` writes for `text`: quotes, and six bytes per byte escaped as `\u00XX`.
    package static func bound(of text: String) -> Int { 2 + 6 * text.utf8.count }

    /// The most `optionalString(_:)` writes.
    package static func bound(of text: String?) -> Int { text.map { bound(of: $0) } ?? 4 }

    /// The most a quoted timestamp takes.
    package static let timestampBound = 2 + Timestamp.length
    /// The most an `Int64` takes.
    package static let intBound = 20

    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        precondition(count < capacity, "JSONWriter bound too small")
        base[count] = byte
        count += 1
    }

    @inline(__always)
    private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(count + bytes.count <= capacity, "JSONWriter bound too small")
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Literal JSON text (punctuation and member names, e.g. `,"level":`).
    package mutating func literal(_ text: StaticString) {
        // The literals here are ASCII, so they have a pointer representation (no closure needed).
        guard text.hasPointerRepresentation else { return text.withUTF8Buffer { put($0) } }
        put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A quoted, escaped string.
    package mutating func string(_ text: String) {
        put(UInt8(ascii: "\""))
        // Native strings (small ones too) lend their bytes in place; `withUTF8` needs a
        // mutable copy, which costs a retain and a release per string.
        if text.utf8.withContiguousStorageIfAvailable({ escaped($0) }) == nil {
            var text = text
            text.withUTF8 { escaped($0) }
        }
        put(UInt8(ascii: "\""))
    }

    /// `utf8` with the escaping of `JSONBytes`, without the quotes.
    @inline(__always)
    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var start = 0
        var i = 0
        while i < utf8.count {
            // Eight bytes at a time while none needs escaping (SWAR, see `needsNoEscape`).
            if let base = utf8.baseAddress {
                let raw = UnsafeRawPointer(base)
                while i + 8 <= utf8.count, Self.needsNoEscape(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                    i += 8
                }
                if i >= utf8.count { break }
            }
            let b = utf8[i]
            i += 1
            guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
            put(UnsafeBufferPointer(rebasing: utf8[start..<(i - 1)]))
            start = i
            put(UInt8(ascii: "\\"))
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(b)
            case 0x08: put(UInt8(ascii: "b"))
            case 0x09: put(UInt8(ascii: "t"))
            case 0x0A: put(UInt8(ascii: "n"))
            case 0x0C: put(UInt8(ascii: "f"))
            case 0x0D: put(UInt8(ascii: "r"))
            default:
                put(UInt8(ascii: "u"))
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "0"))
                put(Self.hex[Int(b >> 4)])
                put(Self.hex[Int(b & 0x0F)])
            }
        }
        put(UnsafeBufferPointer(rebasing: utf8[start...]))
    }

    /// Whether no byte of the little-endian word `x` needs escaping: none below 0x20, no `"`
    /// and no `\` ("Bit Twiddling Hacks", haszero/hasless; bytes >= 0x80 never count).
    @inline(__always)
    private static func needsNoEscape(_ x: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = x ^ (ones &* 0x22)
        let backslash = x ^ (ones &* 0x5C)
        let found = ((x &- ones &* 0x20) & ~x) | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
        return found & highs == 0
    }

    /// A string, or `null`.
    package mutating func optionalString(_ text: String?) {
        if let text { string(text) } else { literal("null") }
    }

    /// A decimal integer.
    package mutating func int(_ value: Int64) {
        if value < 0 { put(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = count
        repeat {
            put(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
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

    /// `true` or `false`.
    package mutating func bool(_ value: Bool) {
        literal(value ? "true" : "false")
    }

    /// A quoted RFC 3339 timestamp (see `Timestamp`).
    package mutating func timestamp(_ date: Date) {
        put(UInt8(ascii: "\""))
        precondition(count + Timestamp.length <= capacity, "JSONWriter bound too small")
        count += Timestamp.write(date, to: base + count)
        put(UInt8(ascii: "\""))
    }

    /// A timestamp, or `null`.
    package mutating func optionalTimestamp(_ date: Date?) {
        if let date { timestamp(date) } else { literal("null") }
    }
}
