internal import CLibPQ

/// The rows of one query's result (`PGresult`, https://www.postgresql.org/docs/15/libpq-exec.html),
/// in text format, cleared when released. Owned by whoever ran the query, like its connection.
package final class PostgresRows {
    let result: OpaquePointer
    /// The SQL text of the statement, for errors.
    let sql: String
    /// The number of rows.
    package let count: Int
    /// The number of columns.
    package let columnCount: Int

    init(result: OpaquePointer, sql: String) {
        self.result = result
        self.sql = sql
        count = Int(PQntuples(result))
        columnCount = Int(PQnfields(result))
    }

    deinit { PQclear(result) }

    /// The row at `index`, from 0; it must be below ``count``.
    package subscript(index: Int) -> PostgresRow {
        precondition(index >= 0 && index < count, "row \(index) of \(count)")
        return PostgresRow(rows: self, index: Int32(index))
    }

    /// The name of the column at `index`.
    package func columnName(at index: Int) -> String {
        precondition(index >= 0 && index < columnCount, "column \(index) of \(columnCount)")
        return PQfname(result, Int32(index)).map { String(cString: $0) } ?? "?"
    }
}

@available(*, unavailable)
extension PostgresRows: Sendable {}
