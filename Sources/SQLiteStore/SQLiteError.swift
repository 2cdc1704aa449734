internal import CSQLite

/// An error reported by SQLite.
///
/// It carries the primary and extended result codes (https://www.sqlite.org/rescode.html), the
/// message from `sqlite3_errmsg`, and the SQL text of the statement as written, with `?`
/// placeholders: bound values are never part of it, so it is safe to log (STYLE 8).
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The primary result code, e.g. `SQLITE_CONSTRAINT` (19).
    public let code: Int32
    /// The extended result code, e.g. `SQLITE_CONSTRAINT_PRIMARYKEY` (1555).
    public let extendedCode: Int32
    /// The message SQLite gave.
    public let message: String
    /// The SQL text, with placeholders, of the statement that failed, when there was one.
    public let sql: String?

    /// Creates an error from its parts.
    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
        self.code = code & 0xFF
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
    }

    /// Reads the last error of a connection (`sqlite3_extended_errcode`, `sqlite3_errmsg`).
    init(connection: OpaquePointer?, resultCode: Int32, sql: String?) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? resultCode
        // The connection's last error is only trusted when it matches the code we got.
        let useConnection = connection != nil && (extended & 0xFF) == (resultCode & 0xFF)
        let text: String
        if useConnection, let connection, let message = sqlite3_errmsg(connection) {
            text = String(cString: message)
        } else {
            text = String(cString: sqlite3_errstr(resultCode))
        }
        self.init(code: resultCode, extendedCode: useConnection ? extended : resultCode, message: text, sql: sql)
    }

    /// `SQLITE_BUSY` or `SQLITE_LOCKED`: another connection holds a conflicting lock.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// `SQLITE_CONSTRAINT`: a UNIQUE, NOT NULL, CHECK, FOREIGN KEY or trigger constraint failed.
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }
    /// `SQLITE_READONLY`: the connection or file cannot be written.
    public var isReadOnly: Bool { code == SQLITE_READONLY }
    /// `SQLITE_CANTOPEN`: a file (the database, its `-wal` or `-shm`) could not be opened.
    public var isCannotOpen: Bool { code == SQLITE_CANTOPEN }
    /// `SQLITE_NOTADB` or `SQLITE_CORRUPT`: the file is not an SQLite database, or a damaged one.
    public var isNotADatabase: Bool { code == SQLITE_NOTADB || code == SQLITE_CORRUPT }

    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " (SQL: \(sql))" }
        return text
    }
}
