#if canImport(Glibc)
internal import Glibc
#endif

/// The `Date` field value in IMF-fixdate form (RFC 9110 §5.6.7), e.g.
/// "Sun, 06 Nov 1994 08:49:37 GMT", reformatted at most once a second. Each connection owns
/// one, so no lock is needed and the hot path is one `time(2)` (vDSO) and a comparison.
package struct HTTPResponseDate {
    private var second: Int = -1
    private var cached: [UInt8] = []

    package init() {}

    /// The 29 bytes of the current IMF-fixdate.
    package mutating func bytes() -> [UInt8] {
        let now = time(nil)
        if now != second {
            second = now
            cached = Self.format(now)
        }
        return cached
    }

    private static let days: [String] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months: [String] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats seconds since the epoch as IMF-fixdate in GMT.
    package static func format(_ seconds: Int) -> [UInt8] {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        var out: [UInt8] = []
        out.reserveCapacity(29)
        out.append(contentsOf: days[Int(parts.tm_wday) % 7].utf8)
        out.append(contentsOf: ", ".utf8)
        appendTwoDigits(Int(parts.tm_mday), to: &out)
        out.append(0x20)
        out.append(contentsOf: months[Int(parts.tm_mon) % 12].utf8)
        out.append(0x20)
        let year = Int(parts.tm_year) + 1900
        appendTwoDigits(year / 100, to: &out)
        appendTwoDigits(year % 100, to: &out)
        out.append(0x20)
        appendTwoDigits(Int(parts.tm_hour), to: &out)
        out.append(0x3A)
        appendTwoDigits(Int(parts.tm_min), to: &out)
        out.append(0x3A)
        appendTwoDigits(Int(parts.tm_sec), to: &out)
        out.append(contentsOf: " GMT".utf8)
        return out
    }

    private static func appendTwoDigits(_ value: Int, to out: inout [UInt8]) {
        out.append(UInt8(0x30 + (value / 10) % 10))
        out.append(UInt8(0x30 + value % 10))
    }
}
