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

    /// Bit flags of `table`.
    static let tcharBit: UInt8 = 1 << 0
    static let pcharBit: UInt8 = 1 << 1
    static let hexBit: UInt8 = 1 << 2
    static let regNameBit: UInt8 = 1 << 3
    static let digitBit: UInt8 = 1 << 4

    /// One byte of flags per byte value.
    static let table: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 256)
        func set(_ chars: String, _ bit: UInt8) { for c in chars.utf8 { t[Int(c)] |= bit } }
        let alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        let digit = "0123456789"
        // tchar (RFC 9110 §5.6.2)
        set(alpha + digit + "!#$%&'*+-.^_`|~", tcharBit)
        // unreserved / sub-delims / ":" / "@" plus "/" "?" "%" of origin-form (RFC 3986 §3.3-§3.4)
        set(alpha + digit + "-._~" + "!$&'()*+,;=" + ":@" + "/?%", pcharBit)
        set(digit + "ABCDEFabcdef", hexBit)
        // reg-name: unreserved / pct-encoded / sub-delims (RFC 3986 §3.2.2)
        set(alpha + digit + "-._~" + "!$&'()*+,;=" + "%", regNameBit)
        set(digit, digitBit)
        return t
    }()

    @inline(__always) static func isTchar(_ b: UInt8) -> Bool { table[Int(b)] & tcharBit != 0 }
    @inline(__always) static func isTargetChar(_ b: UInt8) -> Bool { table[Int(b)] & pcharBit != 0 }
    @inline(__always) static func isHex(_ b: UInt8) -> Bool { table[Int(b)] & hexBit != 0 }
    @inline(__always) static func isRegNameChar(_ b: UInt8) -> Bool { table[Int(b)] & regNameBit != 0 }
    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
    @inline(__always) static func isWhitespace(_ b: UInt8) -> Bool { b == sp || b == htab }

    /// field-vchar, SP or HTAB: anything but CTLs (except HTAB) and DEL (RFC 9110 §5.5).
    @inline(__always) static func isFieldValueByte(_ b: UInt8) -> Bool {
        b >= 0x20 ? b != 0x7F : b == htab
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

extension UnsafeRawBufferPointer {
    /// Whether `self[range]` equals `lowercase` ignoring ASCII case; `lowercase` must be lowercase ASCII.
    @inline(__always)
    func equalsLowercase(_ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        guard range.count == lowercase.utf8CodeUnitCount else { return false }
        let p = lowercase.utf8Start
        var k = 0
        for i in range {
            if ASCII.lower(self[i]) != p[k] { return false }
            k += 1
        }
        return true
    }

    /// The bytes of `range` as a String (lossless for ASCII; other bytes are decoded as UTF-8 with repair).
    @inline(__always)
    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: self[range]), as: UTF8.self)
    }
}
