public import Foundation

/// When location alerts come (SPEC §11 "Location alerts"; `--location-alert-intervals`,
/// `--location-alert-threshold`).
public struct LocationAlertSettings: Hashable, Sendable {
    /// The time from one alert to the next, in seconds: the first from the schedule's first
    /// use, the second from the first alert, and so on; the last repeats. Never empty, each
    /// positive.
    public let intervals: [TimeInterval]
    /// The background uses since the last alert (or since the first use) that make the next
    /// alert due once its interval has passed; at least 1.
    public let threshold: Int

    /// 3, 7, 14 and 30 days: alerts come less often over time (seed 004).
    public static let defaultIntervals: [TimeInterval] = [3, 7, 14, 30].map { $0 * 86_400 }
    /// The most intervals a list may have.
    public static let maxIntervals = 32
    /// The values `threshold` may take.
    public static let thresholdRange = 1...1_000_000

    public init(intervals: [TimeInterval] = Self.defaultIntervals, threshold: Int = 1) {
        precondition(
            !intervals.isEmpty && intervals.count <= Self.maxIntervals && intervals.allSatisfy { $0 > 0 && $0.isFinite },
            "location alert intervals: 1-\(Self.maxIntervals) positive durations")
        precondition(Self.thresholdRange.contains(threshold), "the location alert threshold must be in \(Self.thresholdRange)")
        self.intervals = intervals
        self.threshold = threshold
    }

    /// The shortest and longest interval, in seconds (1 s to 10 years).
    public static let intervalRange: ClosedRange<TimeInterval> = 1...(3_650 * 86_400)

    /// Parses `--location-alert-intervals`: comma-separated durations, each a whole number with
    /// an optional unit, `s`, `m`, `h` or `d` (days when none): `3,7,14,30` or `10s,20s`.
    /// Returns nil for an empty list, more than ``maxIntervals``, or a value that is not such a
    /// duration within ``intervalRange``.
    public static func intervals(parsing text: String) -> [TimeInterval]? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= maxIntervals else { return nil }
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        var intervals: [TimeInterval] = []
        for raw in parts {
            var part = Substring(raw.trimmingCharacters(in: .whitespaces))
            var unit: TimeInterval = 86_400
            if let last = part.last, let named = units[last] {
                unit = named
                part = part.dropLast()
            }
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), part.count <= 10, let value = Int(part)
            else { return nil }
            let seconds = TimeInterval(value) * unit
            guard intervalRange.contains(seconds) else { return nil }
            intervals.append(seconds)
        }
        return intervals
    }

    /// The interval after `alertsShown` alerts: the last one repeats.
    public func interval(afterAlerts alertsShown: Int) -> TimeInterval {
        intervals[min(max(0, alertsShown), intervals.count - 1)]
    }
}
