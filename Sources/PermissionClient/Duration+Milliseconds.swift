extension Duration {
    /// The duration in whole milliseconds, rounded up so that a small positive timeout never
    /// becomes 0 (which libcurl reads as "no timeout"); at least 1 for positive durations.
    var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        guard seconds >= 0, seconds < Int64(Int.max / 1000 - 1) else { return seconds < 0 ? 0 : Int.max / 2 }
        let millis = Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        return millis
    }
}
