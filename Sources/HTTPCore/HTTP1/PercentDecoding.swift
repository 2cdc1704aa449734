import ByteText

/// Percent-decoding of one path segment or query component (RFC 3986 §2.1).
///
/// The router splits the path on raw "/" before decoding, so an encoded `%2F` stays inside its segment.
/// - Parameters:
///   - s: the still-encoded text.
///   - plusAsSpace: decode "+" as a space, as `application/x-www-form-urlencoded` queries do.
/// - Returns: the decoded text, or nil when a "%" is not followed by two hex digits or the
///   decoded bytes are not valid UTF-8.
public func percentDecode(_ s: Substring, plusAsSpace: Bool = false) -> String? {
    let utf8 = s.utf8
    let needsWork = utf8.contains { $0 == ASCII.percent || (plusAsSpace && $0 == 0x2B) }
    guard needsWork else { return String(s) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count)
    var i = utf8.startIndex
    while i != utf8.endIndex {
        let c = utf8[i]
        i = utf8.index(after: i)
        if c == ASCII.percent {
            guard i != utf8.endIndex, let high = ASCII.hexValue(utf8[i]) else { return nil }
            i = utf8.index(after: i)
            guard i != utf8.endIndex, let low = ASCII.hexValue(utf8[i]) else { return nil }
            i = utf8.index(after: i)
            bytes.append(high << 4 | low)
        } else if c == 0x2B && plusAsSpace {
            bytes.append(ASCII.sp)
        } else {
            bytes.append(c)
        }
    }
    guard bytes.withUnsafeBufferPointer(UTF8Sequence.isValid) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
}

/// Splits a query string into ordered, decoded name/value pairs: `a=1&b=x%20y` → `[("a","1"), ("b","x y")]`.
///
/// Pairs are separated by "&"; empty pairs are skipped; a pair without "=" has an empty value;
/// "+" decodes to a space.
/// - Returns: the pairs, or nil when any component has an invalid escape or is not UTF-8.
public func parseQuery(_ query: String) -> [(name: String, value: String)]? {
    var pairs: [(name: String, value: String)] = []
    for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
        let name: Substring
        let value: Substring
        if let eq = piece.firstIndex(of: "=") {
            name = piece[..<eq]
            value = piece[piece.index(after: eq)...]
        } else {
            name = piece
            value = ""
        }
        guard let decodedName = percentDecode(name, plusAsSpace: true),
            let decodedValue = percentDecode(value, plusAsSpace: true)
        else { return nil }
        pairs.append((name: decodedName, value: decodedValue))
    }
    return pairs
}
