public import Foundation

/// RFC 3339 timestamps as the API writes them: UTC with milliseconds,
/// e.g. `2026-11-22T10:00:00.000Z` (RFC 3339 §5.6, the ISO 8601 profile).
///
/// Hand-written so that the hot path never touches `DateFormatter`; conversions between civil
/// dates and day counts follow Howard Hinnant's `days_from_civil` / `civil_from_days`.
/// Years are limited to 0000-9999 (what RFC 3339 can spell); `format` clamps to that range.
public enum Timestamp {
    /// The number of bytes `format` always produces.
    public static let length = 24

    private static let minMilliseconds: Int64 = -62_167_219_200_000  // 0000-01-01T00:00:00.000Z
    private static let maxMilliseconds: Int64 = 253_402_300_799_999  // 9999-12-31T23:59:59.999Z

    /// Formats a date as `YYYY-MM-DDTHH:MM:SS.mmmZ`, truncated (floored) to the millisecond.
    /// - Parameter date: the instant to format.
    public static func format(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        write(date, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 24 bytes of `format(date)` to `bytes`, without allocating a `String`.
    /// - Parameters:
    ///   - date: the instant to format.
    ///   - bytes: the buffer to append to.
    public static func write(_ date: Date, into bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buffer in
            let written = write(date, to: buffer.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<written]))
        }
    }

    /// Writes the 24 bytes of `format(date)` at `out`, which must have room for them.
    /// - Returns: the number of bytes written (24).
    @discardableResult
    package static func write(_ date: Date, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let ms = min(max(milliseconds(since1970: date), minMilliseconds), maxMilliseconds)
        let days = floorDivide(ms, 86_400_000)
        let msOfDay = ms - days * 86_400_000
        let (year, month, day) = civil(fromDays: days)
        var at = 0
        func digits(_ value: Int64, _ count: Int) {
            var v = value
            var index = count - 1
            while index >= 0 {
                out[at + index] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                index -= 1
            }
            at += count
        }
        func byte(_ value: UInt8) {
            out[at] = value
            at += 1
        }
        digits(year, 4)
        byte(UInt8(ascii: "-"))
        digits(month, 2)
        byte(UInt8(ascii: "-"))
        digits(day, 2)
        byte(UInt8(ascii: "T"))
        digits(msOfDay / 3_600_000, 2)
        byte(UInt8(ascii: ":"))
        digits(msOfDay / 60_000 % 60, 2)
        byte(UInt8(ascii: ":"))
        digits(msOfDay / 1000 % 60, 2)
        byte(UInt8(ascii: "."))
        digits(msOfDay % 1000, 3)
        byte(UInt8(ascii: "Z"))
        return at
    }

    /// Parses an RFC 3339 `date-time` (§5.6): `T` or `t` between date and time, an optional
    /// fraction of any length (digits past the millisecond are truncated), and `Z`, `z` or a
    /// numeric offset `±HH:MM`. Leap seconds (`:60`) are refused, as `Date` cannot hold them.
    /// - Parameter text: the timestamp text.
    /// - Returns: the instant, or `nil` when `text` is not a valid RFC 3339 date-time.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// Parses an RFC 3339 `date-time` from UTF-8 bytes; see `parse(_:)`.
    /// - Parameter utf8: the timestamp bytes.
    public static func parse(utf8 b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let ms = parseMilliseconds(utf8: b) else { return nil }
        return date(milliseconds: ms)
    }

    /// The date at `ms` milliseconds since 1970-01-01T00:00:00Z.
    /// - Parameter ms: milliseconds since the Unix epoch.
    public static func date(milliseconds ms: Int64) -> Date {
        Date(timeIntervalSince1970: Double(ms) / 1000)
    }

    /// Whole milliseconds since 1970 (floored), rounding through microseconds first so that a
    /// date made from a millisecond count maps back to exactly that count.
    /// - Parameter date: the instant.
    public static func milliseconds(since1970 date: Date) -> Int64 {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard micros.isFinite, abs(micros) < 9.0e18 else { return micros < 0 ? minMilliseconds : maxMilliseconds }
        return floorDivide(Int64(micros), 1000)
    }

    static func parseMilliseconds(utf8 b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard b.count >= 20 else { return nil }
        guard let year = digits(b, 0, 4), b[4] == UInt8(ascii: "-"),
            let month = digits(b, 5, 2), b[7] == UInt8(ascii: "-"),
            let day = digits(b, 8, 2),
            b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
            let hour = digits(b, 11, 2), b[13] == UInt8(ascii: ":"),
            let minute = digits(b, 14, 2), b[16] == UInt8(ascii: ":"),
            let second = digits(b, 17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var i = 19
        var fraction: Int64 = 0
        if b[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < b.count, let d = digit(b[i]) {
                if i - start < 3 { fraction = fraction * 10 + d }
                i += 1
            }
            guard i > start else { return nil }
            for _ in min(i - start, 3)..<3 { fraction *= 10 }
        }
        guard i < b.count else { return nil }
        var offsetMinutes: Int64 = 0
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard b.count == i + 6, let oh = digits(b, i + 1, 2), b[i + 3] == UInt8(ascii: ":"),
                let om = digits(b, i + 4, 2), oh <= 23, om <= 59
            else { return nil }
            offsetMinutes = (oh * 60 + om) * (b[i] == UInt8(ascii: "+") ? 1 : -1)
            i += 6
        default:
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        return seconds * 1000 + fraction
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// `civil_from_days`: the proleptic Gregorian date of a day count since 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `days_from_civil`: days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func digit(_ byte: UInt8) -> Int64? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int64(byte - UInt8(ascii: "0")) : nil
    }

    private static func digits(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for i in start..<(start + count) {
            guard let d = digit(b[i]) else { return nil }
            value = value * 10 + d
        }
        return value
    }
}
