/// Byte-range helpers the parser uses on the buffer it scans.
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
