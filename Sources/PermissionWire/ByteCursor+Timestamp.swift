package import ByteText
package import Foundation

extension ByteCursor {
    /// A quoted RFC 3339 timestamp (see `Timestamp`).
    @inline(__always)
    package mutating func jsonTimestamp(_ date: Date) {
        literal("\"")
        raw(upTo: Timestamp.length) { Timestamp.write(date, to: $0) }
        literal("\"")
    }

    /// A timestamp, or `null`.
    @inline(__always)
    package mutating func jsonOptionalTimestamp(_ date: Date?) {
        if let date { jsonTimestamp(date) } else { literal("null") }
    }
}
