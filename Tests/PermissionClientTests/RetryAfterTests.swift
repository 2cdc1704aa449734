import Foundation
import PermissionClient
import Testing

/// `Retry-After` (RFC 9110 §10.2.3) as the change feed reads it: delay-seconds or an HTTP-date
/// in its three forms, capped at 60 s, never sooner than the retry policy's own delay.
@Suite("Retry-After")
struct RetryAfterTests {
    /// 2026-11-27T11:00:00Z, a Friday.
    static let now = Date(timeIntervalSince1970: 1_795_777_200)

    @Test(arguments: [
        ("1", Duration.seconds(1)), ("  30 ", .seconds(30)), ("0", .zero),
        ("Fri, 27 Nov 2026 11:00:10 GMT", .seconds(10)), ("Friday, 27-Nov-26 11:00:10 GMT", .seconds(10)),
        ("Fri Nov 27 11:00:10 2026", .seconds(10)), ("Fri, 27 Nov 2026 10:59:00 GMT", .zero),
    ])
    func valuesAreRead(value: String, expected: Duration) {
        #expect(RetryPolicy.retryAfterDelay(value, now: Self.now) == expected)
    }

    @Test func asctimePadsAOneDigitDay() {
        let early = Date(timeIntervalSince1970: 1_794_049_200)  // 2026-11-07T11:00:00Z, a Saturday
        #expect(RetryPolicy.retryAfterDelay("Sat Nov  7 11:00:05 2026", now: early) == .seconds(5))
    }

    @Test(arguments: ["", "soon", "-1", "1.5", "Fri, 27 Nov 2026 11:00:10"])
    func otherValuesAreNone(value: String) {
        #expect(RetryPolicy.retryAfterDelay(value, now: Self.now) == nil)
    }

    @Test func theDelayIsCappedAndNeverBelowThePolicys() {
        let quick = RetryPolicy(baseDelay: .milliseconds(10), maxDelay: .milliseconds(10))
        #expect(quick.delay(after: 1, retryAfter: "3", now: Self.now) == .seconds(3))
        #expect(quick.delay(after: 1, retryAfter: "86400", now: Self.now) == .seconds(60))
        #expect(quick.delay(after: 1, retryAfter: "Fri, 27 Nov 2026 12:00:00 GMT", now: Self.now) == .seconds(60))
        #expect(quick.delay(after: 1, retryAfter: "garbage", now: Self.now) <= .milliseconds(10))
        #expect(quick.delay(after: 1, retryAfter: nil, now: Self.now) <= .milliseconds(10))
        let slow = RetryPolicy(baseDelay: .seconds(4), maxDelay: .seconds(4))
        #expect(slow.delay(after: 1, retryAfter: "1", now: Self.now) >= .seconds(2), "the policy's own delay is the floor")
    }
}
