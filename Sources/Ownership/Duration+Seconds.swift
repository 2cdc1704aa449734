extension Duration {
    /// The duration in seconds, as a `Double`: for `Thread.sleep(forTimeInterval:)`, metrics and
    /// logs. The one conversion of the package's modules.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
