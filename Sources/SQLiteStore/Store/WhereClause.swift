/// The `WHERE` of a filtered listing, built term by term with its parameters in order, so
/// that every filter binds its values instead of splicing them into SQL.
struct WhereClause {
    private(set) var terms: [String] = []
    private(set) var values: [SQLValue] = []

    /// `column = ?` when `value` is given; nothing when it is nil (no filter on that column).
    mutating func equal(_ column: String, _ value: String?) {
        guard let value else { return }
        terms.append("\(column) = ?")
        values.append(.text(value))
    }

    /// A term with its own parameters (e.g. a keyset cursor `(a, b) > (?, ?)`).
    mutating func add(_ term: String, _ parameters: [SQLValue] = []) {
        terms.append(term)
        values += parameters
    }

    /// "WHERE t1 AND t2 ...", or "" without terms.
    var sql: String { terms.isEmpty ? "" : "WHERE " + terms.joined(separator: " AND ") }
}
