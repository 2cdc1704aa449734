/// The chunk-size line of the chunked coding:
/// `chunk-size [ chunk-ext ] CRLF`, `chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] )` (RFC 9112 §7.1.1).
enum ChunkLine {
    /// The chunk size of a whole line (ending in LF); extensions are checked and ignored.
    static func size(_ line: [UInt8]) throws(HTTPParseError) -> Int {
        let n = line.count
        guard n >= 2, line[n - 1] == ASCII.lf, line[n - 2] == ASCII.cr else {
            throw .badRequest("Bare LF as a line ending.")
        }
        let end = n - 2
        var k = 0
        var size = 0
        while k < end, let digit = ASCII.hexValue(line[k]) {
            guard size <= (Int.max - Int(digit)) >> 4 else { throw .badRequest("Chunk size overflows.") }
            size = size << 4 | Int(digit)
            k += 1
        }
        guard k > 0 else { throw .badRequest("Invalid chunk size.") }
        while k < end {
            skipWhitespace(line, &k, end)
            guard k < end, line[k] == ASCII.semicolon else { throw .badRequest("Invalid chunk size or extension.") }
            k += 1
            skipWhitespace(line, &k, end)
            guard skipToken(line, &k, end) else { throw .badRequest("Invalid chunk extension name.") }
            var m = k
            skipWhitespace(line, &m, end)
            if m < end && line[m] == ASCII.equals {
                k = m + 1
                skipWhitespace(line, &k, end)
                guard skipToken(line, &k, end) || skipQuotedString(line, &k, end) else {
                    throw .badRequest("Invalid chunk extension value.")
                }
            }
        }
        return size
    }

    private static func skipWhitespace(_ b: [UInt8], _ k: inout Int, _ end: Int) {
        while k < end && ASCII.isWhitespace(b[k]) { k += 1 }
    }

    /// Skips `1*tchar`; false when there is none.
    private static func skipToken(_ b: [UInt8], _ k: inout Int, _ end: Int) -> Bool {
        let start = k
        while k < end && ASCII.isTchar(b[k]) { k += 1 }
        return k > start
    }

    /// Skips a quoted-string (RFC 9110 §5.6.4); false when there is none or it is unterminated.
    private static func skipQuotedString(_ b: [UInt8], _ k: inout Int, _ end: Int) -> Bool {
        guard k < end, b[k] == ASCII.dquote else { return false }
        var i = k + 1
        while i < end {
            let c = b[i]
            if c == ASCII.dquote {
                k = i + 1
                return true
            }
            if c == ASCII.backslash {
                guard i + 1 < end, ASCII.isFieldValueByte(b[i + 1]) else { return false }
                i += 2
                continue
            }
            guard ASCII.isFieldValueByte(c) else { return false }
            i += 1
        }
        return false
    }
}
