/// The `WHERE` of a filtered listing, built term by term with `$n` placeholders numbered in
/// order, so that every filter binds its values instead of splicing them into SQL.
struct WhereClause {
    private(set) var terms: [String] = []
    private(set) var values: [PostgresValue] = []

    /// The placeholder of the next parameter.
    var nextPlaceholder: String { "$\(values.count + 1)" }

    /// `column = $n` when `value` is given; nothing when it is nil (no filter on that column).
    mutating func equal(_ column: String, _ value: String?) {
        guard let value else { return }
        terms.append("\(column) = \(nextPlaceholder)")
        values.append(.text(value))
    }

    /// A term whose `?`s are replaced by the next placeholders, with one value each.
    mutating func add(_ term: String, _ parameters: [PostgresValue]) {
        var text = ""
        var remaining = parameters[...]
        for character in term {
            if character == "?", let value = remaining.popFirst() {
                text += nextPlaceholder
                values.append(value)
            } else {
                text.append(character)
            }
        }
        precondition(remaining.isEmpty, "more parameters than placeholders in \(term)")
        terms.append(text)
    }

    /// "WHERE t1 AND t2 ...", or "" without terms.
    var sql: String { terms.isEmpty ? "" : "WHERE " + terms.joined(separator: " AND ") }
}
