/// Byte constants and character classes of the HTTP and URI grammars, as lookup tables so the
/// parser classifies each byte with one load (RFC 9110 §5.6.2, RFC 3986 §2-§3).
enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let sp: UInt8 = 0x20
    static let htab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let comma: UInt8 = 0x2C
    static let semicolon: UInt8 = 0x3B
    static let equals: UInt8 = 0x3D
    static let dquote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let slash: UInt8 = 0x2F
    static let question: UInt8 = 0x3F
    static let percent: UInt8 = 0x25
    static let asterisk: UInt8 = 0x2A

    // Character classes as 128-bit sets (bit n of `low` is byte n, bit n of `high` is byte 64 + n);
    // integer literals fold into the code, so a lookup is a shift and a mask with no global access.
    // tchar (RFC 9110 §5.6.2): ALPHA DIGIT and !#$%&'*+-.^_`|~
    static let tcharLow: UInt64 = 0x03FF_6CFA_0000_0000
    static let tcharHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE
    // origin-form characters: unreserved, sub-delims, ":" "@" "/" "?" "%" (RFC 3986 §3.3-§3.4)
    static let targetLow: UInt64 = 0xAFFF_FFF2_0000_0000
    static let targetHigh: UInt64 = 0x47FF_FFFE_87FF_FFFF
    // HEXDIG, either case
    static let hexLow: UInt64 = 0x03FF_0000_0000_0000
    static let hexHigh: UInt64 = 0x0000_007E_0000_007E
    // reg-name characters: unreserved, sub-delims and "%" (RFC 3986 §3.2.2)
    static let regNameLow: UInt64 = 0x2BFF_7FF2_0000_0000
    static let regNameHigh: UInt64 = 0x47FF_FFFE_87FF_FFFE

    @inline(__always) static func member(_ b: UInt8, _ low: UInt64, _ high: UInt64) -> Bool {
        if b < 64 { return (low >> UInt64(b)) & 1 != 0 }
        if b < 128 { return (high >> UInt64(b - 64)) & 1 != 0 }
        return false
    }

    @inline(__always) static func isTchar(_ b: UInt8) -> Bool { member(b, tcharLow, tcharHigh) }
    @inline(__always) static func isTargetChar(_ b: UInt8) -> Bool { member(b, targetLow, targetHigh) }
    @inline(__always) static func isHex(_ b: UInt8) -> Bool { member(b, hexLow, hexHigh) }
    @inline(__always) static func isRegNameChar(_ b: UInt8) -> Bool { member(b, regNameLow, regNameHigh) }
    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
    @inline(__always) static func isWhitespace(_ b: UInt8) -> Bool { b == sp || b == htab }

    /// field-vchar, SP or HTAB: anything but CTLs (except HTAB) and DEL (RFC 9110 §5.5).
    @inline(__always) static func isFieldValueByte(_ b: UInt8) -> Bool {
        b >= 0x20 ? b != 0x7F : b == htab
    }

    // Eight bytes at a time (SWAR; "Bit Twiddling Hacks", haszero/hasless): whether any byte of
    // the little-endian word `x` is below `n` (n <= 128; bytes >= 0x80 never count) or equals `b`.
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    @inline(__always) static func anyByte(of x: UInt64, below n: UInt8) -> Bool {
        (x &- ones &* UInt64(n)) & ~x & highs != 0
    }

    @inline(__always) static func anyByte(of x: UInt64, equalTo b: UInt8) -> Bool {
        let v = x ^ (ones &* UInt64(b))
        return (v &- ones) & ~v & highs != 0
    }

    /// Whether all eight bytes of `x` are field-value bytes other than HTAB (which, being a
    /// control character, sends the caller to its byte-wise path, as does the CR ending a line).
    @inline(__always) static func allPlainFieldValueBytes(_ x: UInt64) -> Bool {
        !anyByte(of: x, below: 0x20) && !anyByte(of: x, equalTo: 0x7F)
    }

    /// The value of a hex digit, or nil.
    @inline(__always) static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }

    @inline(__always) static func lower(_ b: UInt8) -> UInt8 { (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b }
}
