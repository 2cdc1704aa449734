public import Foundation

/// Hand-written JSON output for the hot path (RFC 8259 §7 string escaping), byte-identical to
/// what `JSONEncoder` writes with `.sortedKeys` and `.withoutEscapingSlashes`:
/// `"` and `\` escaped, `\b \t \n \f \r` short forms, other control characters as `\u00XX`
/// (lowercase hex), everything else (DEL, U+2028, any non-ASCII) passed through as UTF-8.
public enum JSONBytes {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `string` as a quoted, escaped JSON string.
    /// - Parameters:
    ///   - string: the text to write.
    ///   - bytes: the buffer to append to.
    public static func appendString(_ string: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { appendEscaped($0, into: &bytes) }
        if done == nil {
            let copy = Array(string.utf8)
            copy.withUnsafeBufferPointer { appendEscaped($0, into: &bytes) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `"name":` for a member name that needs no escaping (a literal of this module).
    /// - Parameters:
    ///   - name: the member name, plain ASCII.
    ///   - bytes: the buffer to append to.
    public static func appendKey(_ name: StaticString, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends a decimal integer.
    /// - Parameters:
    ///   - value: the integer.
    ///   - bytes: the buffer to append to.
    public static func appendInt(_ value: Int64, into bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// Appends `true` or `false`.
    public static func appendBool(_ value: Bool, into bytes: inout [UInt8]) {
        let literal: StaticString = value ? "true" : "false"
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends `null`.
    public static func appendNull(into bytes: inout [UInt8]) {
        let literal: StaticString = "null"
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends a timestamp as a quoted RFC 3339 string (see `Timestamp`).
    public static func appendTimestamp(_ date: Date, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        Timestamp.write(date, into: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a string, or `null` when absent.
    public static func appendOptionalString(_ value: String?, into bytes: inout [UInt8]) {
        if let value { appendString(value, into: &bytes) } else { appendNull(into: &bytes) }
    }

    /// Appends a timestamp, or `null` when absent.
    public static func appendOptionalTimestamp(_ value: Date?, into bytes: inout [UInt8]) {
        if let value { appendTimestamp(value, into: &bytes) } else { appendNull(into: &bytes) }
    }

    private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        var start = 0
        for i in 0..<utf8.count {
            let b = utf8[i]
            guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
            if start < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i])) }
            start = i + 1
            bytes.append(UInt8(ascii: "\\"))
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(b)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default:
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(hex[Int(b >> 4)])
                bytes.append(hex[Int(b & 0x0F)])
            }
        }
        if start < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...])) }
    }
}
