/// Hand-written output (a response head, a JSON document, a log line) written straight into
/// memory reserved for it, without appending to an array byte by byte (a capacity and
/// uniqueness check each time cost more than the bytes).
///
/// The reserve is derived from what is written, never counted by hand: ``bytes(_:)``,
/// ``string(_:)`` and ``append(to:reservingAfter:_:_:)`` run the body twice, first with a measuring cursor, where
/// each write adds the most it can take (a literal its `utf8CodeUnitCount`, a JSON string six
/// bytes per byte, an integer twenty), then with a writing cursor over exactly that much. A new
/// field therefore adds to the reserve by being written; the body must write the same for the
/// same values both times (it reads only values, not shared mutable state). Each write checks
/// the reserve once (not per byte) and stops the process rather than overrun it.
///
/// This module is a leaf below every other target: it imports nothing (not even Foundation),
/// so that HTTPCore and the domain, which import no other target of ours, may use it.
public struct ByteCursor {
    /// Where the bytes go; nil while measuring.
    @usableFromInline let base: UnsafeMutablePointer<UInt8>?
    /// The reserve: what the measuring pass counted.
    @usableFromInline let capacity: Int
    /// Bytes written so far (while measuring: the reserve counted so far).
    @usableFromInline var written = 0

    @inlinable
    init(base: UnsafeMutablePointer<UInt8>?, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Bytes written so far; while measuring, the most they can take.
    @inlinable public var count: Int { written }

    /// Whether this is the measuring pass (nothing is written).
    @inlinable public var isMeasuring: Bool { base == nil }

    /// The most `body` writes: the measuring pass alone.
    @inlinable @inline(__always)
    public static func bound(of body: (inout ByteCursor) -> Void) -> Int {
        var measure = ByteCursor(base: nil, capacity: Int.max)
        body(&measure)
        return measure.written
    }

    /// What `body` writes, in an array allocated once, of the measured size.
    @inlinable @inline(__always)  // so `body` is inlined too and its captures are not copied into a context
    public static func bytes(_ body: (inout ByteCursor) -> Void) -> [UInt8] {
        let bound = bound(of: body)
        return [UInt8](unsafeUninitializedCapacity: max(bound, 1)) { buffer, initialized in
            var cursor = ByteCursor(base: buffer.baseAddress!, capacity: bound)
            body(&cursor)
            initialized = cursor.written
        }
    }

    /// What `body` writes, as a `String` made in place (valid UTF-8 only: literals, escaped
    /// strings, numbers).
    @inlinable @inline(__always)
    public static func string(_ body: (inout ByteCursor) -> Void) -> String {
        let bound = bound(of: body)
        return String(unsafeUninitializedCapacity: max(bound, 1)) { buffer in
            var cursor = ByteCursor(base: buffer.baseAddress!, capacity: bound)
            body(&cursor)
            return cursor.written
        }
    }

    /// Appends what `body` writes from `value` to `bytes`; an empty `bytes` with nothing
    /// reserved after becomes an array of the measured size written in place. `value` is handed
    /// to `body` rather than captured by it: `body` runs twice, so it is not inlined, and a
    /// captured struct would be copied (its references retained) into the closure's context.
    /// - Parameters:
    ///   - bytes: the buffer to append to.
    ///   - extra: capacity to reserve past what `body` writes (a body appended next).
    ///   - value: what `body` writes from.
    ///   - body: the writes.
    @inlinable @inline(__always)
    public static func append<Value>(
        to bytes: inout [UInt8], reservingAfter extra: Int = 0, _ value: Value,
        _ body: (Value, inout ByteCursor) -> Void
    ) {
        var measure = ByteCursor(base: nil, capacity: Int.max)
        body(value, &measure)
        let bound = measure.written
        if bytes.isEmpty && extra == 0 {
            bytes = [UInt8](unsafeUninitializedCapacity: max(bound, 1)) { buffer, initialized in
                var cursor = ByteCursor(base: buffer.baseAddress!, capacity: bound)
                body(value, &cursor)
                initialized = cursor.written
            }
            return
        }
        bytes.reserveCapacity(bytes.count + bound + extra)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(bound, 1)) { buffer in
            var cursor = ByteCursor(base: buffer.baseAddress!, capacity: bound)
            body(value, &cursor)
            bytes.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress, count: cursor.written))
        }
    }

    /// The writing position for `reserve` more bytes; nil while measuring, which counts them.
    @inlinable @inline(__always)
    mutating func room(_ reserve: Int) -> UnsafeMutablePointer<UInt8>? {
        guard let base else {
            written += reserve
            return nil
        }
        precondition(written &+ reserve <= capacity, "ByteCursor: more written than measured")
        return base + written
    }

    /// One byte.
    @inlinable @inline(__always)
    public mutating func put(_ byte: UInt8) {
        guard let at = room(1) else { return }
        at.pointee = byte
        written += 1
    }

    /// Bytes as they are.
    @inlinable @inline(__always)
    public mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let at = room(bytes.count), let source = bytes.baseAddress else { return }
        at.update(from: source, count: bytes.count)
        written += bytes.count
    }

    /// A literal (punctuation, a field or member name with its punctuation, e.g. `,"level":`).
    @inlinable @inline(__always)
    public mutating func literal(_ text: StaticString) {
        // ASCII literals have a pointer representation, so no closure is needed.
        guard text.hasPointerRepresentation else { return text.withUTF8Buffer { put($0) } }
        put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Bytes as they are.
    @inlinable @inline(__always)
    public mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    /// The UTF-8 of `text` as it is (no escaping).
    @inlinable @inline(__always)
    public mutating func text(_ text: String) {
        guard !isMeasuring else {
            written += text.utf8.count
            return
        }
        // In place for native strings (small ones too): `withUTF8` on a copy costs a retain
        // and a release.
        if text.utf8.withContiguousStorageIfAvailable({ put($0) }) == nil {
            var text = text
            text.withUTF8 { put($0) }
        }
    }

    /// An integer in decimal, with a leading `-` when negative (at most twenty bytes).
    @inlinable
    public mutating func decimal(_ value: Int64) {
        guard let at = room(20) else { return }
        var end = 0
        if value < 0 {
            at[0] = UInt8(ascii: "-")
            end = 1
        }
        var magnitude = value.magnitude
        let start = end
        repeat {
            at[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
            end += 1
        } while magnitude > 0
        var low = start
        var high = end - 1
        while low < high {
            let digit = at[low]
            at[low] = at[high]
            at[high] = digit
            low += 1
            high -= 1
        }
        written += end
    }

    /// `value` as sixteen lowercase hex digits, leading zeros included.
    @inlinable
    public mutating func hex(_ value: UInt64) {
        guard let at = room(16) else { return }
        for index in 0..<16 {
            at[index] = Self.hexDigit(UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0x0F)
        }
        written += 16
    }

    /// The lowercase hex digit of a nibble.
    @inlinable @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
    }

    /// Up to `maximum` bytes that `write` puts at the pointer it gets (a formatted timestamp),
    /// returning how many it wrote.
    @inlinable @inline(__always)
    public mutating func raw(upTo maximum: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        guard let at = room(maximum) else { return }
        let count = write(at)
        precondition(count <= maximum, "ByteCursor: a raw write took more than it said")
        written += count
    }
}
