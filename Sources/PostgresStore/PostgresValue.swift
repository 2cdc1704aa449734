/// A parameter of a prepared statement, sent in PostgreSQL's text format
/// (https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQEXECPARAMS): the server infers
/// each parameter's type from the statement, so write a cast (`$1::bigint`) where it cannot.
package enum PostgresValue: Sendable, Equatable {
    case null
    case int64(Int64)
    case text(String)
    case bool(Bool)
    /// Bytes for a `bytea` parameter, sent in hex format (`\x0a1b`,
    /// https://www.postgresql.org/docs/15/datatype-binary.html#id-1.5.7.12.9).
    case bytes([UInt8])

    /// The text format of the value; nil for SQL NULL.
    var textFormat: String? {
        switch self {
        case .null: return nil
        case .int64(let value): return String(value)
        case .text(let value): return value
        case .bool(let value): return value ? "t" : "f"
        case .bytes(let value):
            let digits = Array("0123456789abcdef".utf8)
            var hex: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
            hex.reserveCapacity(2 + value.count * 2)
            for byte in value {
                hex.append(digits[Int(byte >> 4)])
                hex.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: hex, as: UTF8.self)
        }
    }
}

extension PostgresValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByNilLiteral
{
    package init(integerLiteral value: Int64) { self = .int64(value) }
    package init(stringLiteral value: String) { self = .text(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(nilLiteral: ()) { self = .null }
}
