import Synchronization

/// SQL text known when the program starts (a `static let`), under a name of its own that every
/// connection prepares it as (`PQprepare`) the first time it runs it, and reuses afterwards
/// (https://www.postgresql.org/docs/15/sql-prepare.html). The name comes from a process-wide
/// counter, so two statements never share one.
package struct PreparedStatement: Sendable, Hashable {
    private static let next = Atomic<Int>(0)

    /// The statement's name on every connection, `s0`, `s1`, ...
    package let name: String
    /// One SQL statement, with `$1`, `$2`, ... placeholders.
    package let sql: String

    /// More statements than the program has, with every listing's filter shape
    /// (``cached(_:)``): one named per request would prepare ever more on every connection, and
    /// stops the process here instead.
    static let maximum = 16_384

    /// Names a statement for `sql`: call it once per statement (in a `static let`, or through
    /// ``cached(_:)``), never per request, since every call prepares another statement on every
    /// connection that runs it.
    package init(_ sql: String) {
        self.sql = sql
        let number = Self.next.wrappingAdd(1, ordering: .relaxed).oldValue
        precondition(
            number < Self.maximum, "PreparedStatement number \(number) for \(sql): statements are named once, in a static let")
        name = "s\(number)"
    }
}
