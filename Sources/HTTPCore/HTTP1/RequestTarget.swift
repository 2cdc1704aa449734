/// The request-target split into its parts (RFC 9112 §3.2), as byte ranges into the scanned buffer.
struct RequestTarget {
    var path: Range<Int>
    var query: Range<Int>?
    /// The authority of an absolute-form target; it replaces Host (RFC 9112 §3.2.2).
    var authority: Range<Int>?
    /// Asterisk-form: the path is reported as "*".
    var isAsterisk: Bool

    /// Classifies and checks the target; its bytes are already known to be visible ASCII without "#".
    /// - Parameters:
    ///   - b: the buffer holding the request line.
    ///   - range: the target's bytes.
    ///   - isOptions: whether the method is OPTIONS, the only one allowed the asterisk-form (RFC 9112 §3.2.4).
    static func parse(_ b: UnsafeRawBufferPointer, _ range: Range<Int>, isOptions: Bool) throws(HTTPParseError) -> RequestTarget {
        let first = b[range.lowerBound]
        if first == ASCII.slash {
            let (path, query) = try splitPathAndQuery(b, range)
            return RequestTarget(path: path, query: query, authority: nil, isAsterisk: false)
        }
        if first == ASCII.asterisk && range.count == 1 {
            guard isOptions else { throw .badRequest("The asterisk-form target is only allowed with OPTIONS.") }
            return RequestTarget(path: range, query: nil, authority: nil, isAsterisk: true)
        }
        // absolute-form: "http" / "https" "://" authority path-abempty [ "?" query ] (RFC 9110 §4.2)
        var i = range.lowerBound
        let schemeEnd: Int
        if b.equalsLowercase(i..<min(i + 7, range.upperBound), "http://") {
            schemeEnd = i + 7
        } else if b.equalsLowercase(i..<min(i + 8, range.upperBound), "https://") {
            schemeEnd = i + 8
        } else {
            throw .badRequest("The request target is not in origin-form, absolute-form or asterisk-form.")
        }
        i = schemeEnd
        while i < range.upperBound, b[i] != ASCII.slash, b[i] != ASCII.question { i += 1 }
        let authority = schemeEnd..<i
        // The host may not be empty, with or without a port ("http://:80/").
        guard !authority.isEmpty, b[authority.lowerBound] != ASCII.colon else {
            throw .badRequest("An http URI with an empty host (RFC 9110 §4.2.1).")
        }
        for k in authority where b[k] == 0x40 {
            throw .badRequest("Userinfo in the request target (RFC 9110 §4.2.4).")
        }
        try HostValidator.validate(b, authority)
        if i == range.upperBound {
            return RequestTarget(path: i..<i, query: nil, authority: authority, isAsterisk: false)
        }
        if b[i] == ASCII.question {
            // path-abempty is empty; the path defaults to "/" and the query follows.
            let (_, query) = try splitPathAndQuery(b, i..<range.upperBound)
            return RequestTarget(path: i..<i, query: query, authority: authority, isAsterisk: false)
        }
        let (path, query) = try splitPathAndQuery(b, i..<range.upperBound)
        return RequestTarget(path: path, query: query, authority: authority, isAsterisk: false)
    }

    /// Splits `absolute-path [ "?" query ]` and checks its characters and percent-escapes (RFC 3986 §3.3-§3.4).
    private static func splitPathAndQuery(
        _ b: UnsafeRawBufferPointer, _ range: Range<Int>
    ) throws(HTTPParseError) -> (Range<Int>, Range<Int>?) {
        var queryStart: Int? = nil
        var i = range.lowerBound
        while i < range.upperBound {
            let c = b[i]
            guard ASCII.isTargetChar(c) else { throw .badRequest("Invalid character in the request target.") }
            if c == ASCII.percent {
                guard i + 2 < range.upperBound, ASCII.isHex(b[i + 1]), ASCII.isHex(b[i + 2]) else {
                    throw .badRequest("A '%' in the request target not followed by two hex digits.")
                }
                i += 3
                continue
            }
            if c == ASCII.question && queryStart == nil { queryStart = i }
            i += 1
        }
        guard let q = queryStart else { return (range, nil) }
        return (range.lowerBound..<q, (q + 1)..<range.upperBound)
    }
}
