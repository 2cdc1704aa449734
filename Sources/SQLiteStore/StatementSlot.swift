import Synchronization

/// SQL text known when the program starts (a `static let`), with a small integer of its own
/// under which every connection caches its prepared statement. ``Database`` finds it by that
/// index in an array instead of hashing the text: hashing a 200-byte query on every request
/// cost more than SQLite's own primary-key lookup. Use it for the statements a request runs
/// every time; listings whose text is built per call keep the text-keyed cache.
package struct StatementSlot: Sendable {
    private static let next = Atomic<Int>(0)

    /// The index of the statement in each connection's slot array.
    let index: Int
    /// One SQL statement, with `?NNN` placeholders.
    package let sql: String

    /// More slots than the program has statements: a slot made per request would grow every
    /// connection's array without bound, and stops the process here instead.
    static let maximum = 1_024

    /// Reserves a slot for `sql`: call it once per statement (in a `static let`), never per
    /// request, since every call takes a new slot on every connection that runs it.
    package init(_ sql: String) {
        self.sql = sql
        index = Self.next.wrappingAdd(1, ordering: .relaxed).oldValue
        precondition(
            index < Self.maximum, "StatementSlot number \(index) for \(sql): slots are made once, in a static let")
    }
}
