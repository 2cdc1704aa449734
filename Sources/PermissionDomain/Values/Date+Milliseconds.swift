public import Foundation

extension Date {
    /// Milliseconds since 1970-01-01T00:00:00Z, rounded down: the resolution of every stored time.
    public var millisecondsSince1970: Int64 {
        // Round to whole microseconds first: a date made from milliseconds is stored as the
        // nearest Double, which may lie a fraction of a microsecond below the intended value.
        let micros = Int64((timeIntervalSince1970 * 1_000_000).rounded())
        return micros >= 0 ? micros / 1000 : (micros - 999) / 1000
    }

    /// The date at `milliseconds` since 1970-01-01T00:00:00Z.
    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// This date truncated to whole milliseconds, so that it survives a round trip through the store.
    public var truncatedToMilliseconds: Date { Date(millisecondsSince1970: millisecondsSince1970) }
}
