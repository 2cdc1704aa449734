internal import CSQLite

/// The errors this package raises itself, one constructor per primary result code
/// (https://www.sqlite.org/rescode.html): the one place outside the C calls that names a code,
/// so no file spells one as a number.
extension SQLiteError {
    /// `SQLITE_MISUSE`: the package was used out of order (a closed database, a write body
    /// that returned no result, SQL text without a statement).
    static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: message, sql: sql)
    }

    /// Whether this is `SQLITE_MISUSE` (``misuse(_:sql:)``).
    var isMisuse: Bool { code == SQLITE_MISUSE }

    /// `SQLITE_BUSY`: nothing became free within the busy timeout.
    static func busy(_ message: String) -> SQLiteError {
        SQLiteError(code: SQLITE_BUSY, message: message, sql: nil)
    }

    /// `SQLITE_CANTOPEN`: a file or directory could not be created, moved or removed.
    static func cannotOpen(_ message: String) -> SQLiteError {
        SQLiteError(code: SQLITE_CANTOPEN, message: message, sql: nil)
    }

    /// `SQLITE_CORRUPT`: a stored value is not what the schema allows.
    static func corrupt(_ message: String) -> SQLiteError {
        SQLiteError(code: SQLITE_CORRUPT, message: message, sql: nil)
    }

    /// `SQLITE_READONLY`: the database cannot be written.
    static func readOnly(_ message: String) -> SQLiteError {
        SQLiteError(code: SQLITE_READONLY, message: message, sql: nil)
    }

    /// `SQLITE_FULL`: the file system has no room for the database to grow.
    static func full(_ message: String) -> SQLiteError {
        SQLiteError(code: SQLITE_FULL, message: message, sql: nil)
    }

    /// Whether this is `SQLITE_FULL` (``full(_:)``): a write the disk had no room for, which
    /// may succeed once room is made.
    var isFull: Bool { code == SQLITE_FULL }

    /// `SQLITE_ERROR`: a generic failure, such as a pragma that did not take.
    static func generic(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: SQLITE_ERROR, message: message, sql: sql)
    }
}
