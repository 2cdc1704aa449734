/// A write body changed something without an audit entry naming it; the write is rolled back.
/// Replicas learn of changes only from the audit log (``ReadModelChanges``), so such a change
/// would stay invisible to their memory: a programming error, refused on every write of a store
/// that serves (one with a read model). Stores opened for commands and store-level tests, which
/// keep nothing in memory, do not check.
struct UnauditedChange: Error, CustomStringConvertible {
    let changes: [String]

    var description: String {
        "a write changed \(changes.joined(separator: ", ")) without an audit entry naming it"
    }
}
