/// Scans `method SP request-target SP HTTP-version CRLF` byte by byte (RFC 9112 §3), so that the
/// first offending byte decides the error however the input is split.
enum RequestLineScanner {
    /// The parts of a request line (RFC 9112 §3), as byte ranges into the scanned buffer.
    struct Line {
        var method: Range<Int>
        var target: Range<Int>
        var version: HTTPVersion
        /// The index just after the line's CRLF.
        var next: Int
    }

    /// - Parameters:
    ///   - b: the bytes received so far.
    ///   - start: the index of the line's first byte (after any leading empty lines).
    ///   - lineCap: the first index the line's content may not reach (414).
    ///   - headCap: the first index the head may not reach (431).
    static func scan(_ b: UnsafeRawBufferPointer, from start: Int, lineCap: Int, headCap: Int) throws(ScanStop) -> Line {
        let count = b.count
        let limit = min(count, lineCap, headCap)
        /// Requires the content byte at `i` (one compare on the hot path).
        @inline(__always) func need(_ i: Int) throws(ScanStop) {
            if i >= limit {
                if i >= lineCap { throw .failure(.uriTooLong) }
                if i >= headCap { throw .failure(.headerFieldsTooLarge) }
                throw .needMore
            }
        }
        var i = start
        // method = token
        while true {
            try need(i)
            let c = b[i]
            if ASCII.isTchar(c) {
                i += 1
                continue
            }
            if c == ASCII.sp && i > start { break }
            throw .failure(
                .badRequest(i == start ? "The request line does not start with a method." : "Invalid character in the method."))
        }
        let method = start..<i
        i += 1
        // request-target: visible ASCII of the target grammars, up to the next SP
        let targetStart = i
        while true {
            try need(i)
            let c = b[i]
            if c == ASCII.sp { break }
            if c > 0x20 && c < 0x7F {
                if ASCII.isTargetChar(c) || c == 0x5B || c == 0x5D {
                    i += 1
                    continue
                }
                if c == 0x23 { throw .failure(.badRequest("A fragment in the request target.")) }
                throw .failure(.badRequest("Invalid character in the request target."))
            }
            if c == ASCII.cr || c == ASCII.lf {
                throw .failure(.badRequest("The request line has no HTTP version."))
            }
            throw .failure(.badRequest("Invalid byte in the request target."))
        }
        if i == targetStart { throw .failure(.badRequest("Empty request target.")) }
        let target = targetStart..<i
        i += 1
        // HTTP-version = "HTTP" "/" DIGIT "." DIGIT, case-sensitive (RFC 9112 §2.3)
        let pattern: StaticString = "HTTP/0.0"
        var digits: (UInt8, UInt8) = (0, 0)
        for k in 0..<8 {
            try need(i)
            let c = b[i]
            let p = pattern.utf8Start[k]
            if p == 0x30 {
                guard ASCII.isDigit(c) else { throw .failure(.badRequest("Malformed HTTP version.")) }
                if k == 5 { digits.0 = c - 0x30 } else { digits.1 = c - 0x30 }
            } else if c != p {
                throw .failure(.badRequest("Malformed HTTP version."))
            }
            i += 1
        }
        // CRLF: the CR may sit at lineCap (the content ends before it), the LF after it.
        if i >= headCap { throw .failure(.headerFieldsTooLarge) }
        if i >= count { throw .needMore }
        guard b[i] == ASCII.cr else {
            throw .failure(.badRequest(b[i] == ASCII.lf ? "Bare LF as a line ending." : "Malformed HTTP version."))
        }
        if i + 1 >= headCap { throw .failure(.headerFieldsTooLarge) }
        if i + 1 >= count { throw .needMore }
        guard b[i + 1] == ASCII.lf else { throw .failure(.badRequest("Bare CR in the request line.")) }
        // RFC 9110 §6.2: serve 1.x (x >= 2) as 1.1; refuse other majors.
        guard digits.0 == 1 else { throw .failure(.versionNotSupported) }
        let version = digits.1 == 0 ? HTTPVersion.http1_0 : HTTPVersion.http1_1
        return Line(method: method, target: target, version: version, next: i + 2)
    }
}
