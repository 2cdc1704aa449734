/// Byte-level helpers for the router: request paths are split on raw "/" bytes (RFC 3986 §3.3)
/// and only segments holding a "%" are percent-decoded (§2.1), so an encoded "/" stays inside
/// its segment and the common path allocates nothing.
enum PathSegments {
    /// The offset of the "/" ending the segment that starts at `start`, or `path.count`.
    @inline(__always)
    static func end(of path: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start
        while i < path.count && path[i] != ASCII.slash { i += 1 }
        return i
    }

    /// Whether two byte strings are equal.
    @inline(__always)
    static func equal(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { a in
            var i = 0
            while i < a.count {
                if a[i] != b[i] { return false }
                i += 1
            }
            return true
        }
    }

    /// The percent-decoded segment, or nil when an escape or the decoded UTF-8 is invalid.
    static func decode(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
        percentDecode(Substring(String(decoding: raw, as: UTF8.self)))
    }

    /// The segment's value as a `String`: decoded when it holds a "%".
    static func value(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
        raw.contains(ASCII.percent) ? decode(raw) : String(decoding: raw, as: UTF8.self)
    }

    /// Whether every segment of `path` after the leading "/" decodes (checked once, before
    /// matching, so an undecodable path is a 400 whichever route it would have reached).
    static func allDecode(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 1
        while start <= path.count {
            let end = end(of: path, from: start)
            let raw = UnsafeBufferPointer(rebasing: path[start..<end])
            if raw.contains(ASCII.percent) && decode(raw) == nil { return false }
            start = end + 1
        }
        return true
    }
}
