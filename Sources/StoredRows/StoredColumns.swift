package import Foundation

/// One row as a store read it, SQLite's statement and libpq's result row alike: the little that
/// decoding a stored shape needs, so that each shape both stores keep in the same columns (an
/// audit entry, a prompt, a policy, an API key, a consent session) is decoded by one piece of
/// code, in this target.
package protocol StoredColumns {
    /// The column's text; nil for NULL.
    func text(_ column: Int) -> String?
    /// The column's integer; nil for NULL.
    func integer(_ column: Int) throws -> Int64?
    /// The column's bytes; nil for NULL.
    func bytes(_ column: Int) throws -> [UInt8]?
    /// The store's error for a stored value that does not parse: the file or database was
    /// changed outside this program.
    func corrupt(_ table: String, _ column: String) -> any Error
    /// The name of the user column in this store's tables (`user` in SQLite, `user_id` in
    /// PostgreSQL, where `user` is reserved), for the corruption error.
    var userColumn: String { get }
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

    /// A millisecond timestamp column; nil for NULL.
    package func date(_ column: Int) throws -> Date? {
        try integer(column).map(Date.init(millisecondsSince1970:))
    }

    /// A comma-joined list column split into its parts (NULL and empty text are an empty list).
    package func list(_ column: Int) -> [Substring] {
        guard let text = text(column), !text.isEmpty else { return [] }
        return text.split(separator: ",", omittingEmptySubsequences: false)
    }
}
