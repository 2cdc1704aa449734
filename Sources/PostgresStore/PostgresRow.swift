internal import CLibPQ

/// One row of ``PostgresRows``, read column by column (by index, from 0).
///
/// Each typed read throws when the column is NULL or its text is not of that type; the
/// `optional...` reads answer nil for NULL.
package struct PostgresRow {
    let rows: PostgresRows
    let index: Int32

    /// Whether the column is SQL NULL.
    package func isNull(at column: Int) -> Bool {
        PQgetisnull(rows.result, index, checked(column)) == 1
    }

    /// The column's text, or nil for NULL.
    package func optionalString(at column: Int) -> String? {
        let column32 = checked(column)
        guard PQgetisnull(rows.result, index, column32) == 0, let value = PQgetvalue(rows.result, index, column32) else {
            return nil
        }
        let length = Int(PQgetlength(rows.result, index, column32))
        return value.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// The column's text.
    package func string(at column: Int) throws -> String {
        guard let text = optionalString(at: column) else { throw nullError(column) }
        return text
    }

    /// The column as an integer (`bigint`, `integer`, `smallint`), or nil for NULL.
    package func optionalInt64(at column: Int) throws -> Int64? {
        guard let text = optionalString(at: column) else { return nil }
        guard let value = Int64(text) else { throw typeError(column, "an integer") }
        return value
    }

    /// The column as an integer.
    package func int64(at column: Int) throws -> Int64 {
        guard let value = try optionalInt64(at: column) else { throw nullError(column) }
        return value
    }

    /// The column as a boolean (`t` or `f`), or nil for NULL.
    package func optionalBool(at column: Int) throws -> Bool? {
        switch optionalString(at: column) {
        case nil: return nil
        case "t": return true
        case "f": return false
        default: throw typeError(column, "a boolean")
        }
    }

    /// The column as a boolean.
    package func bool(at column: Int) throws -> Bool {
        guard let value = try optionalBool(at: column) else { throw nullError(column) }
        return value
    }

    /// A `bytea` column's bytes, or nil for NULL; both output formats are read
    /// (`PQunescapeBytea`, https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQUNESCAPEBYTEA).
    package func optionalBytes(at column: Int) throws -> [UInt8]? {
        let column32 = checked(column)
        guard PQgetisnull(rows.result, index, column32) == 0, let value = PQgetvalue(rows.result, index, column32) else {
            return nil
        }
        var length = 0
        guard let unescaped = value.withMemoryRebound(to: UInt8.self, capacity: 1, { PQunescapeBytea($0, &length) }) else {
            throw typeError(column, "bytea")
        }
        defer { PQfreemem(unescaped) }
        return Array(UnsafeBufferPointer(start: unescaped, count: length))
    }

    /// A `bytea` column's bytes.
    package func bytes(at column: Int) throws -> [UInt8] {
        guard let value = try optionalBytes(at: column) else { throw nullError(column) }
        return value
    }

    private func checked(_ column: Int) -> Int32 {
        precondition(column >= 0 && column < rows.columnCount, "column \(column) of \(rows.columnCount)")
        return Int32(column)
    }

    private func nullError(_ column: Int) -> PostgresError {
        PostgresError(message: "column \(column) (\(rows.columnName(at: column))) is NULL", sql: rows.sql)
    }

    /// The value itself stays out of the message, like any value (STYLE 8).
    private func typeError(_ column: Int, _ type: String) -> PostgresError {
        PostgresError(message: "column \(column) (\(rows.columnName(at: column))) is not \(type)", sql: rows.sql)
    }
}

@available(*, unavailable)
extension PostgresRow: Sendable {}
