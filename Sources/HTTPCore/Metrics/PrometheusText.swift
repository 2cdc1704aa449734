/// Builds a Prometheus text exposition (format version 0.0.4,
/// https://prometheus.io/docs/instrumenting/exposition_formats/): one `# HELP` and `# TYPE`
/// line per metric family, then its samples. Label values are escaped (`\\`, `\"`, `\n`).
///
/// ```swift
/// var text = PrometheusText()
/// text.family("http_open_connections", help: "Open connections.", type: .gauge)
/// text.sample("http_open_connections", value: 3)
/// let body = text.output
/// ```
public struct PrometheusText: Sendable {
    /// The metric type of a family.
    public enum MetricType: String, Sendable {
        case counter, gauge, histogram
    }

    /// The media type of the exposition.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The text built so far.
    public private(set) var output = ""

    public init() {
        output.reserveCapacity(4096)
    }

    /// Starts a family: its `# HELP` and `# TYPE` lines.
    public mutating func family(_ name: String, help: String, type: MetricType) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) \(type.rawValue)\n"
    }

    /// One sample line, `name{labels} value`.
    public mutating func sample(_ name: String, labels: [(String, String)] = [], value: Double) {
        output += name
        appendLabels(labels)
        output += " "
        output += Self.format(value)
        output += "\n"
    }

    /// One sample line with an integer value.
    public mutating func sample(_ name: String, labels: [(String, String)] = [], value: Int) {
        sample(name, labels: labels, value: Double(value))
    }

    /// The samples of one histogram series: cumulative `_bucket` lines up to `+Inf`, then
    /// `_sum` and `_count`.
    /// - Parameters:
    ///   - upperBounds: the finite bucket bounds, increasing.
    ///   - counts: observations per bucket, not cumulative; one more than `upperBounds` (the
    ///     last is the overflow bucket).
    ///   - sum: the sum of the observed values.
    public mutating func histogram(
        _ name: String, labels: [(String, String)] = [], upperBounds: [Double], counts: [UInt64], sum: Double
    ) {
        var cumulative: UInt64 = 0
        for (index, bound) in upperBounds.enumerated() {
            cumulative += index < counts.count ? counts[index] : 0
            sample(name + "_bucket", labels: labels + [("le", Self.format(bound))], value: Double(cumulative))
        }
        if upperBounds.count < counts.count { cumulative += counts[upperBounds.count] }
        sample(name + "_bucket", labels: labels + [("le", "+Inf")], value: Double(cumulative))
        sample(name + "_sum", labels: labels, value: sum)
        sample(name + "_count", labels: labels, value: Double(cumulative))
    }

    private mutating func appendLabels(_ labels: [(String, String)]) {
        guard !labels.isEmpty else { return }
        output += "{"
        for (index, (name, value)) in labels.enumerated() {
            if index > 0 { output += "," }
            output += name
            output += "=\""
            output += Self.escape(value)
            output += "\""
        }
        output += "}"
    }

    /// A label value with `\`, `"` and newline escaped, as the format requires.
    static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") })
        else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Integers without a fraction, others in Swift's shortest round-trip form.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
