/// Scans the field lines of header and trailer sections (RFC 9112 §5, RFC 9110 §5.5), byte by byte,
/// so that the first invalid byte decides the error whatever the input was split into.
enum FieldLineScanner {
    /// One field line of a header or trailer section, as byte ranges into the scanned buffer.
    struct Field {
        var name: Range<Int>
        /// The value with leading and trailing OWS removed (RFC 9112 §5.1).
        var value: Range<Int>
    }

    /// The result of scanning one line of a field section.
    enum Result {
        /// A field line; `next` is the index just after its CRLF.
        case field(Field, next: Int)
        /// The empty line that ends the section; `next` is the index just after it.
        case end(next: Int)
    }

    /// Scans one line starting at `start`.
    /// - Parameters:
    ///   - b: the bytes received so far.
    ///   - start: the index of the line's first byte.
    ///   - cap: the first index the section may not reach; needing it throws `headerFieldsTooLarge` (431).
    static func scan(_ b: UnsafeRawBufferPointer, from start: Int, cap: Int) throws(ScanStop) -> Result {
        // One compare per byte on the hot path; which limit was hit is sorted out only then.
        let limit = min(b.count, cap)
        @inline(__always) func need(_ i: Int) throws(ScanStop) {
            if i >= limit { throw i >= cap ? .failure(.headerFieldsTooLarge) : .needMore }
        }
        var i = start
        try need(i)
        let first = b[i]
        if first == ASCII.cr {
            try need(i + 1)
            guard b[i + 1] == ASCII.lf else { throw .failure(.badRequest("Bare CR in the field section.")) }
            return .end(next: i + 2)
        }
        if first == ASCII.lf { throw .failure(.badRequest("Bare LF as a line ending.")) }
        if ASCII.isWhitespace(first) {
            throw .failure(.badRequest("Obsolete line folding or whitespace before a field name (RFC 9112 §5.2)."))
        }
        // field-name = token, then ":" with no whitespace before it (RFC 9112 §5.1).
        while true {
            try need(i)
            let c = b[i]
            if ASCII.isTchar(c) {
                i += 1
                continue
            }
            if c == ASCII.colon { break }
            if ASCII.isWhitespace(c) {
                throw .failure(.badRequest("Whitespace between a field name and the colon (RFC 9112 §5.1)."))
            }
            if c == ASCII.cr || c == ASCII.lf { throw .failure(.badRequest("A field line without a colon.")) }
            throw .failure(.badRequest("Invalid character in a field name."))
        }
        if i == start { throw .failure(.badRequest("A field line with an empty name.")) }
        let name = start..<i
        i += 1
        // OWS field-value OWS CRLF
        while true {
            try need(i)
            if !ASCII.isWhitespace(b[i]) { break }
            i += 1
        }
        let valueStart = i
        while true {
            // Eight plain bytes at a time; a control byte (CR, HTAB, anything bad) or the end of
            // the buffer drops to the byte-wise check below.
            if let base = b.baseAddress {
                while i + 8 <= limit, ASCII.allPlainFieldValueBytes(base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                    i += 8
                }
            }
            try need(i)
            let c = b[i]
            if c == ASCII.cr { break }
            if !ASCII.isFieldValueByte(c) {
                if c == ASCII.lf { throw .failure(.badRequest("Bare LF as a line ending.")) }
                throw .failure(.badRequest("Control character in a field value."))
            }
            i += 1
        }
        // OWS before the CR is not part of the value.
        var valueEnd = i
        while valueEnd > valueStart && ASCII.isWhitespace(b[valueEnd - 1]) { valueEnd -= 1 }
        try need(i + 1)
        guard b[i + 1] == ASCII.lf else { throw .failure(.badRequest("Bare CR in a field value.")) }
        return .field(Field(name: name, value: valueStart..<valueEnd), next: i + 2)
    }
}
