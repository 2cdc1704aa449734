/// JSON values (RFC 8259): the one string escaper of the package, and the small literals.
extension ByteCursor {
    /// The most ``jsonString(_:style:)`` writes for `text`: quotes, and six bytes per byte (a
    /// control character becomes `\u00XX`; a three-byte U+2028 becomes `\u2028`).
    @inlinable
    public static func jsonStringBound(of text: String) -> Int { 2 + 6 * text.utf8.count }

    /// `text` as a quoted JSON string, escaped in `style` (see ``JSONStringStyle``).
    @inlinable @inline(__always)  // so that the measuring pass is an addition, not a call
    public mutating func jsonString(_ text: String, style: JSONStringStyle = .encoder) {
        guard let at = room(Self.jsonStringBound(of: text)) else { return }
        written += Self.writeJSONString(text, at: at, style: style)
    }

    /// Writes `text` quoted and escaped at `at`, which has room for ``jsonStringBound(of:)``.
    /// - Returns: the number of bytes written.
    @inlinable
    static func writeJSONString(_ text: String, at: UnsafeMutablePointer<UInt8>, style: JSONStringStyle) -> Int {
        at.pointee = UInt8(ascii: "\"")
        // Native strings (small ones too) lend their bytes in place; `withUTF8` needs a
        // mutable copy, which costs a retain and a release per string.
        var end =
            text.utf8.withContiguousStorageIfAvailable { escape($0, to: at + 1, style: style) }
            ?? {
                var text = text
                return text.withUTF8 { escape($0, to: at + 1, style: style) }
            }()
        end += 1
        at[end] = UInt8(ascii: "\"")
        return end + 1
    }

    /// A JSON string, or `null`.
    @inlinable
    public mutating func jsonOptionalString(_ text: String?, style: JSONStringStyle = .encoder) {
        if let text { jsonString(text, style: style) } else { literal("null") }
    }

    /// `true` or `false`.
    @inlinable @inline(__always)
    public mutating func jsonBool(_ value: Bool) {
        literal(value ? "true" : "false")
    }

    /// Writes `utf8` escaped, without quotes, at `out` (room for six bytes per byte).
    /// - Returns: the number of bytes written.
    @inlinable
    static func escape(
        _ utf8: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>, style: JSONStringStyle
    )
        -> Int
    {
        guard let source = utf8.baseAddress else { return 0 }
        let count = utf8.count
        var written = 0
        var start = 0
        var i = 0
        @inline(__always) func plain(upTo end: Int) {
            (out + written).update(from: source + start, count: end - start)
            written += end - start
        }
        @inline(__always) func put(_ byte: UInt8) {
            out[written] = byte
            written += 1
        }
        while i < count {
            // Eight bytes at a time while none needs escaping (SWAR, see `needsNoEscape`).
            while i + 8 <= count,
                needsNoEscape(UnsafeRawPointer(source).loadUnaligned(fromByteOffset: i, as: UInt64.self), style: style)
            {
                i += 8
            }
            if i >= count { break }
            let byte = source[i]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
                if style.escapesLineSeparators, byte == 0xE2, i + 2 < count, source[i + 1] == 0x80,
                    source[i + 2] == 0xA8 || source[i + 2] == 0xA9
                {
                    plain(upTo: i)
                    for letter in "\\u202".utf8 { put(letter) }
                    put(source[i + 2] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9"))
                    i += 3
                    start = i
                    continue
                }
                i += 1
                continue
            }
            plain(upTo: i)
            i += 1
            start = i
            put(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(byte)
            case 0x0A: put(UInt8(ascii: "n"))
            case 0x0D: put(UInt8(ascii: "r"))
            case 0x09: put(UInt8(ascii: "t"))
            case 0x08 where style.shortBackspaceAndFormFeed: put(UInt8(ascii: "b"))
            case 0x0C where style.shortBackspaceAndFormFeed: put(UInt8(ascii: "f"))
            default:
                put(UInt8(ascii: "u"))
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "0"))
                put(hexDigit(byte >> 4))
                put(hexDigit(byte & 0x0F))
            }
        }
        plain(upTo: count)
        return written
    }

    /// Whether no byte of the little-endian word `x` needs escaping in `style`: none below
    /// 0x20, no `"`, no `\`, and no 0xE2 (a possible U+2028) when those are escaped
    /// ("Bit Twiddling Hacks", haszero/hasless; bytes >= 0x80 never count otherwise).
    @inlinable @inline(__always)
    static func needsNoEscape(_ x: UInt64, style: JSONStringStyle) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = x ^ (ones &* 0x22)
        let backslash = x ^ (ones &* 0x5C)
        var found = ((x &- ones &* 0x20) & ~x) | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
        if style.escapesLineSeparators {
            let lead = x ^ (ones &* 0xE2)
            found |= (lead &- ones) & ~lead
        }
        return found & highs == 0
    }
}
