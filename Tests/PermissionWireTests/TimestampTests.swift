import Foundation
import PermissionWire
import Testing

@Suite struct TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_795_341_600_000, "2026-11-22T10:00:00.000Z"),
        (1_795_341_600_001, "2026-11-22T10:00:00.001Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (4_107_542_399_999, "2100-02-28T23:59:59.999Z"),
    ])
    func formatsKnownInstants(ms: Int64, text: String) throws {
        #expect(Timestamp.format(Timestamp.date(milliseconds: ms)) == text)
        #expect(Timestamp.milliseconds(since1970: try #require(Timestamp.parse(text))) == ms)
    }

    @Test func formatTruncatesToTheMillisecond() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1.0019)) == "1970-01-01T00:00:01.001Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -0.0001)) == "1969-12-31T23:59:59.999Z")
    }

    @Test func formatClampsToFourDigitYears() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1e12)) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -1e14)) == "0000-01-01T00:00:00.000Z")
    }

    @Test func formatAgreesWithISO8601FormatterOverManyInstants() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var ms: Int64 = -2_208_988_800_000  // 1900
        while ms < 4_102_444_800_000 {  // 2100
            let date = Timestamp.date(milliseconds: ms)
            #expect(Timestamp.format(date) == formatter.string(from: date))
            #expect(Timestamp.milliseconds(since1970: try #require(Timestamp.parse(Timestamp.format(date)))) == ms)
            ms += 86_400_000 * 37 + 3_600_000 * 5 + 61_001
        }
    }

    @Test(arguments: [
        ("2026-11-22T10:00:00Z", Int64(1_795_341_600_000)),
        ("2026-11-22t10:00:00z", 1_795_341_600_000),
        ("2026-11-22T10:00:00.5Z", 1_795_341_600_500),
        ("2026-11-22T10:00:00.123456789Z", 1_795_341_600_123),
        ("2026-11-22T11:30:00+01:30", 1_795_341_600_000),
        ("2026-11-22T05:00:00.000-05:00", 1_795_341_600_000),
        ("2024-02-29T00:00:00Z", 1_709_164_800_000),
    ])
    func parsesRFC3339Variants(text: String, ms: Int64) throws {
        #expect(Timestamp.milliseconds(since1970: try #require(Timestamp.parse(text))) == ms)
    }

    @Test(arguments: [
        "", "2026-11-22", "2026-11-22T10:00:00", "2026-11-22 10:00:00Z", "2026-13-01T00:00:00Z",
        "2026-00-10T00:00:00Z", "2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-11-22T24:00:00Z", "2026-11-22T10:60:00Z", "2026-11-22T10:00:60Z", "2026-11-22T10:00:00.Z",
        "2026-11-22T10:00:00+0100", "2026-11-22T10:00:00+24:00", "2026-11-22T10:00:00Zjunk",
        "26-11-22T10:00:00Z", "2026-1-22T10:00:00Z", "+2026-11-22T10:00:00Z", "2026-11-22T10:00:00.00١Z",
        "２026-11-22T10:00:00Z",
    ])
    func rejectsInvalidTimestamps(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func writeAppendsExactlyTwentyFourBytes() {
        var bytes: [UInt8] = [0x41]
        Timestamp.write(Fixtures.t1, into: &bytes)
        #expect(bytes.count == 1 + Timestamp.length)
        #expect(String(decoding: bytes, as: UTF8.self) == "A2026-11-22T10:10:00.123Z")
    }
}
