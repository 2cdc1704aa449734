/// FNV-1a, 64 bit: a fast, stable digest for entity-tags (not a security boundary).
struct Digest {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(byte: UInt8) {
        value ^= UInt64(byte)
        value &*= 0x0000_0100_0000_01B3
    }

    mutating func add(_ text: String?) {
        guard let text else {
            add(byte: 0xFF)
            return
        }
        // Over the contiguous UTF-8 of a native string: no per-byte index checks.
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes { add(byte: byte) }
        }
        if done == nil {
            for byte in text.utf8 { add(byte: byte) }
        }
        add(byte: 0x00)
    }

    mutating func add(_ number: Int64) {
        var bits = UInt64(bitPattern: number)
        for _ in 0..<8 {
            add(byte: UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }
}
