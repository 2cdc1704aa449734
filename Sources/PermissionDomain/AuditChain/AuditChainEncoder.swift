/// Builds one canonical encoding of ``AuditChain``: the tag, then each field as NULL (`0x00`),
/// INTEGER (`0x01` + 8 bytes big-endian) or TEXT (`0x02` + 4-byte big-endian UTF-8 length +
/// the bytes).
struct AuditChainEncoder {
    private(set) var bytes: [UInt8]

    init(tag: [UInt8]) {
        bytes = []
        bytes.reserveCapacity(512)
        bytes.append(contentsOf: tag)
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

    mutating func add(_ value: String?) {
        guard let value else { return bytes.append(0) }
        bytes.append(2)
        let count = UInt32(truncatingIfNeeded: value.utf8.count)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
        bytes.append(contentsOf: value.utf8)
    }
}
