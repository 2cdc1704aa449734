public import Foundation

/// Hand-written JSON output for the hot path (RFC 8259 §7 string escaping), byte-identical to
/// what `JSONEncoder` writes with `.sortedKeys` and `.withoutEscapingSlashes`:
/// `"` and `\` escaped, `\b \t \n \f \r` short forms, other control characters as `\u00XX`
/// (lowercase hex), everything else (DEL, U+2028, any non-ASCII) passed through as UTF-8.
public enum JSONBytes {
    /// Appends `string` as a quoted, escaped JSON string.
    /// - Parameters:
    ///   - string: the text to write.
    ///   - bytes: the buffer to append to.
    public static func appendString(_ string: String, into bytes: inout [UInt8]) {
        JSONWriter.write(into: &bytes, bound: JSONWriter.bound(of: string)) { $0.string(string) }
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
        JSONWriter.write(into: &bytes, bound: JSONWriter.intBound) { $0.int(value) }
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
}
