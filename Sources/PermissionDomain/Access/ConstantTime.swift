/// Comparison of secrets, and of anything that contains one (an `Authorization` field, a
/// stored secret hash), in time that depends only on the lengths: every byte of both sides is
/// read and combined, with no early exit at the first difference, so response times tell a
/// caller nothing about how much of a guess was right. The one such comparison in the
/// package; a test reads Sources/ to keep it that way.
package enum ConstantTime {
    /// Whether `lhs` and `rhs` hold the same bytes. Both are read to their ends whatever they
    /// hold (a longer side's extra bytes included), so the work depends only on the lengths,
    /// which are not secret (a token's length is on the wire, a hash has a fixed one).
    /// - Parameters:
    ///   - lhs: bytes, e.g. a stored hash or a remembered header's UTF-8.
    ///   - rhs: bytes of the same kind.
    @inlinable
    package static func equal<L: Collection<UInt8>, R: Collection<UInt8>>(_ lhs: L, _ rhs: R) -> Bool {
        // Contiguous bytes (a native string's UTF-8, an array): indexed, without an iterator's
        // optionals; this runs per request on a keep-alive connection (the remembered field).
        let contiguous = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in equal(buffer: left, right) }
        }
        if let contiguous, let result = contiguous { return result }
        var left = lhs.makeIterator()
        var right = rhs.makeIterator()
        var difference: UInt8 = 0
        while true {
            let (a, b) = (left.next(), right.next())
            if a == nil, b == nil { break }
            // A missing byte on one side (the lengths differ) counts as a difference.
            difference |= (a ?? 0) ^ (b ?? 0) | (a == nil || b == nil ? 1 : 0)
        }
        return difference == 0
    }

    /// ``equal(_:_:)`` over two buffers: every index up to the longer length is read, a byte
    /// past one side's end counting as a difference.
    @inlinable
    static func equal(buffer lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        var difference: UInt8 = lhs.count == rhs.count ? 0 : 1
        let common = min(lhs.count, rhs.count)
        // The bytes both sides have, with no branch on them (a loop the compiler vectorizes: this
        // runs on every request of a keep-alive connection, over its `Authorization` field).
        if common > 0, let left = lhs.baseAddress, let right = rhs.baseAddress {
            for index in 0..<common { difference |= left[index] ^ right[index] }
        }
        // Then the longer side's rest, so that both are read to their ends.
        let longer = lhs.count > rhs.count ? lhs : rhs
        for index in common..<longer.count { difference |= longer[index] | 1 }
        return difference == 0
    }
}
