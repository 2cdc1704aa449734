/// One row as a store read it, SQLite's statement and libpq's result row alike: the little that
/// decoding a stored shape needs, so that each shape both stores keep in the same columns (an
/// audit entry, ``AuditEntry/init(storedColumns:keyring:)``) is decoded by one piece of code.
package protocol StoredColumns {
    /// The column's text; nil for NULL.
    func text(_ column: Int) -> String?
    /// The column's integer; nil for NULL.
    func integer(_ column: Int) throws -> Int64?
    /// The store's error for a stored value that does not parse: the file or database was
    /// changed outside this program.
    func corrupt(_ table: String, _ column: String) -> any Error
}

extension StoredColumns {
    /// A non-NULL text column, or the corruption error naming it.
    package func required(_ column: Int, _ table: String, _ name: String) throws -> String {
        guard let text = text(column) else { throw corrupt(table, name) }
        return text
    }

    /// A column holding a `RawRepresentable` enumeration's raw value, or the corruption error.
    package func enumeration<Value: RawRepresentable>(
        _ type: Value.Type, at column: Int, _ table: String, _ name: String
    ) throws -> Value where Value.RawValue == String {
        guard let text = text(column), let value = Value(rawValue: text) else { throw corrupt(table, name) }
        return value
    }

    /// A 0/1 column; NULL reads as false.
    package func flag(_ column: Int) throws -> Bool {
        (try integer(column) ?? 0) != 0
    }
}
