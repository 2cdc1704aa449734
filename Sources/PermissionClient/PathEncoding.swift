/// Percent-encoding of path segments and query components (RFC 3986 §2.1, §3.3, §3.4): every
/// byte outside the unreserved set `A-Z a-z 0-9 - . _ ~` becomes `%XX`, so that an id can never
/// add a path segment or a query parameter; and a segment that is all dots, `.` or `..`, has
/// them encoded, `%2E`, so that it can never remove one (§5.2.4: libcurl, like any client,
/// removes the dot-segments of a path before it sends it, and `users/../apps` would reach
/// `apps`). A user id may be `.` or `..`.
enum PathEncoding {
    /// Encodes one path segment or query value.
    /// - Parameter text: the raw text.
    static func encode(_ text: String) -> String {
        var needsEncoding = false
        for byte in text.utf8 where !isUnreserved(byte) {
            needsEncoding = true
            break
        }
        guard needsEncoding else { return text }
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Joins encoded segments under `/`: `path(["v1", "users", "u 1"])` → `/v1/users/u%201`,
    /// `path(["v1", "users", ".."])` → `/v1/users/%2E%2E`.
    static func path(_ segments: String...) -> String {
        var result = ""
        for segment in segments {
            result += "/"
            result += Self.segment(segment)
        }
        return result
    }

    /// One path segment, encoded: a dot-segment (`.`, `..`) has its dots encoded too.
    static func segment(_ text: String) -> String {
        switch text {
        case ".": "%2E"
        case "..": "%2E%2E"
        default: encode(text)
        }
    }

    /// Appends `?name=value&...` for the items whose value is present.
    static func query(_ path: String, _ items: [(String, String?)]) -> String {
        var result = path
        var separator = "?"
        for (name, value) in items {
            guard let value else { continue }
            result += separator + name + "=" + encode(value)
            separator = "&"
        }
        return result
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
