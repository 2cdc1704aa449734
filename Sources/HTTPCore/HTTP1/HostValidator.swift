/// Checks `uri-host [ ":" port ]` (RFC 9112 §3.2, RFC 3986 §3.2.2-§3.2.3) for the Host field and
/// the authority of an absolute-form target.
enum HostValidator {
    /// Throws `badRequest` unless `range` is a reg-name or IPv4 address, or an IP-literal in
    /// brackets, optionally followed by ":" and port digits. An empty value is allowed (RFC 9112 §3.2);
    /// a port without a host is not.
    static func validate(_ b: UnsafeRawBufferPointer, _ range: Range<Int>) throws(HTTPParseError) {
        var i = range.lowerBound
        let end = range.upperBound
        if i < end && b[i] == 0x5B {
            // IP-literal = "[" ( IPv6address / IPvFuture ) "]"; checked loosely: hex, ":" and "." only,
            // or "v" HEXDIG "." followed by unreserved / sub-delims / ":".
            i += 1
            let literalStart = i
            while i < end && b[i] != 0x5D {
                let c = b[i]
                guard
                    ASCII.isHex(c) || c == ASCII.colon || c == 0x2E || ((c == 0x76 || c == 0x56) && i == literalStart)
                        || (ASCII.isRegNameChar(c) && c != ASCII.percent && isFuture(b, literalStart))
                else { throw .badRequest("Invalid IP literal in the host.") }
                i += 1
            }
            guard i < end, i > literalStart else { throw .badRequest("Unterminated or empty IP literal in the host.") }
            i += 1
        } else {
            while i < end && b[i] != ASCII.colon {
                let c = b[i]
                guard ASCII.isRegNameChar(c) else { throw .badRequest("Invalid character in the host.") }
                if c == ASCII.percent {
                    guard i + 2 < end, ASCII.isHex(b[i + 1]), ASCII.isHex(b[i + 2]) else {
                        throw .badRequest("Invalid percent-escape in the host.")
                    }
                    i += 2
                }
                i += 1
            }
        }
        guard i < end else { return }
        guard b[i] == ASCII.colon else { throw .badRequest("Invalid character after the host.") }
        // A port with no host (":80") names nothing an http URI can (RFC 9110 §4.2.1).
        guard i > range.lowerBound else { throw .badRequest("A port without a host.") }
        i += 1
        while i < end {
            guard ASCII.isDigit(b[i]) else { throw .badRequest("The port is not a number.") }
            i += 1
        }
    }

    private static func isFuture(_ b: UnsafeRawBufferPointer, _ literalStart: Int) -> Bool {
        b[literalStart] == 0x76 || b[literalStart] == 0x56
    }
}
