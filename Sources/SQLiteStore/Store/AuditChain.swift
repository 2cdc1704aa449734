import Crypto

/// The audit hash chain: each audit row stores `prev_hash` (the previous row's `hash`, 64 `0`s
/// for seq 1) and `hash`, the lowercase hex SHA-256 (FIPS 180-4, through swift-crypto) of the
/// row's canonical encoding.
///
/// The canonical encoding is the ASCII tag `permission-audit-v1` followed by the 23 columns of
/// ``columns`` in that order, each as
/// - NULL: the byte `0x00`;
/// - INTEGER: the byte `0x01`, then the value as 8 bytes big-endian two's complement;
/// - TEXT: the byte `0x02`, then the UTF-8 byte count as 4 bytes big-endian, then the bytes.
///
/// The columns are the stored ones (`STRICT` table, so each has one type), booleans as 0/1,
/// times as Unix milliseconds, `detail` as its stored JSON text; `prev_hash` is the last field,
/// so an entry's hash covers its predecessor's. The README shows a short script that checks it.
enum AuditChain {
    /// The tag that starts every encoding (a version for the format).
    static let tag = Array("permission-audit-v1".utf8)
    /// `prev_hash` of the first entry.
    static let genesis = String(repeating: "0", count: 64)
    /// The hashed columns, in encoding order; the integer ones are ``integerColumns``.
    static let columns = [
        "seq", "at", "actor_key", "actor_role", "action", "user", "app", "service",
        "from_status", "from_level", "from_provisional", "from_once",
        "to_status", "to_level", "to_provisional", "to_once",
        "reason", "purpose", "purpose_hash", "prompt_id", "request_id", "detail", "prev_hash",
    ]
    /// The columns stored as INTEGER.
    static let integerColumns: Set<String> = ["seq", "at", "from_provisional", "from_once", "to_provisional", "to_once"]

    /// The last entry of the chain: the writer keeps it so an append reads nothing.
    struct Tip: Equatable {
        var seq: Int64
        var hash: String
    }

    /// Builds one canonical encoding.
    struct Encoder {
        private(set) var bytes: [UInt8]

        init() {
            bytes = []
            bytes.reserveCapacity(512)
            bytes.append(contentsOf: AuditChain.tag)
        }

        mutating func add(_ value: Int64?) {
            guard let value else { return bytes.append(0) }
            bytes.append(1)
            var bits = UInt64(bitPattern: value)
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: bits >> 56))
                bits <<= 8
            }
        }

        mutating func add(_ value: Bool?) {
            add(value.map { $0 ? Int64(1) : 0 })
        }

        mutating func add(_ value: String?) {
            guard let value else { return bytes.append(0) }
            bytes.append(2)
            let count = UInt32(truncatingIfNeeded: value.utf8.count)
            for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
            bytes.append(contentsOf: value.utf8)
        }

        /// The lowercase hex SHA-256 of the bytes so far.
        func hash() -> String { AuditChain.hex(SHA256.hash(data: bytes)) }
    }

    /// Lowercase hex SHA-256 of `text`'s UTF-8 bytes (the `purpose_hash` of a purpose string).
    static func hexSHA256(_ text: String) -> String {
        hex(SHA256.hash(data: Array(text.utf8)))
    }

    private static let digits = Array("0123456789abcdef".utf8)

    static func hex(_ digest: SHA256.Digest) -> String {
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
