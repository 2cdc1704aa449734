/// The elements of a comma-separated field value, `#element` (RFC 9110 §5.6.1).
enum ListElements {
    /// Calls `body` with each element's range, OWS trimmed, in order.
    /// - Parameters:
    ///   - keepEmpty: also report empty elements (a recipient otherwise ignores them, RFC 9110 §5.6.1.2).
    @inline(__always)
    static func forEach(_ b: UnsafeRawBufferPointer, _ range: Range<Int>, keepEmpty: Bool = false, _ body: (Range<Int>) -> Void) {
        var start = range.lowerBound
        while true {
            var end = start
            while end < range.upperBound && b[end] != ASCII.comma { end += 1 }
            var lo = start
            var hi = end
            while lo < hi && ASCII.isWhitespace(b[lo]) { lo += 1 }
            while hi > lo && ASCII.isWhitespace(b[hi - 1]) { hi -= 1 }
            if lo < hi || keepEmpty { body(lo..<hi) }
            if end >= range.upperBound { return }
            start = end + 1
        }
    }
}
