public import Foundation

/// The one place response (and SDK request) bodies are encoded with Foundation: sorted keys,
/// unescaped slashes, timestamps as `Timestamp.format`. The hot shapes (`Authorization` and the
/// AuthZEN evaluation answers) also have hand-written `jsonBytes` encoders that produce the
/// same bytes.
public enum WireEncoder {
    /// Encodes `value` as compact JSON.
    /// - Parameter value: any wire shape.
    /// - Returns: UTF-8 JSON bytes.
    /// - Throws: `EncodingError` (only for values no wire shape contains, such as NaN).
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        Array(try makeJSONEncoder().encode(value))
    }

    /// Encodes `value` followed by a newline: one line of an NDJSON stream.
    /// - Parameter value: any wire shape.
    public static func encodeLine<T: Encodable>(_ value: T) throws -> [UInt8] {
        var bytes = try encode(value)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// A `JSONEncoder` configured for the wire format.
    public static func makeJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.format(date))
        }
        return encoder
    }
}
