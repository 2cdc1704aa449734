internal import CSQLite
import Foundation
package import Ownership

/// One SQLite connection (https://www.sqlite.org/c3ref/sqlite3.html).
///
/// Opened with `SQLITE_OPEN_NOMUTEX`: a connection has exactly one owner at a time (the writer
/// queue, or whoever checked it out of the reader pool), so it is not `Sendable`. It keeps a
/// cache of prepared statements keyed by their SQL text; use ``withStatement(_:_:)`` on hot
/// paths so a request never prepares.
package final class Database {
    /// Whether the connection may write.
    package enum Mode: Sendable {
        case readWrite
        case readOnly
        /// Read-only, and the file taken as one nothing changes: no locks, no `-shm`, and a
        /// `-wal` beside it ignored (`immutable=1`, https://www.sqlite.org/uri.html#uriimmutable).
        /// For a file on read-only storage, where a WAL-mode reader cannot make its `-shm`.
        case immutable
        /// Read-write with no journal at all (`journal_mode = OFF`): a file written once, in
        /// one go, and removed when that fails, such as a backup's copy. Every page goes into the
        /// file itself, not through a `-wal` of the same size first.
        case unjournaled
    }

    /// The `sqlite3*` handle.
    let handle: OpaquePointer
    /// The file path the connection was opened on.
    package let path: String
    /// Whether the connection was opened read-only.
    package let mode: Mode
    private var statementCache: [String: Statement] = [:]
    /// Statements looked up by their text on this connection (``cachedStatement(_:)``): a test
    /// checks that a settings write, commit included, looks up none (each is a ``StatementSlot``).
    package private(set) var textLookups = 0
    /// Statements of ``StatementSlot``s, by slot index (nil: not prepared on this connection yet).
    /// Unchecked exclusivity: a connection is used by one thread at a time (checked by ``use``
    /// in debug builds) and `slots` is never borrowed across a call, so the runtime check on
    /// every statement lookup is skipped.
    @exclusivity(unchecked) private var slots: [Statement?] = []
    /// The loans of this connection to one thread at a time: the reader pool lends it for each
    /// read, the writer for each block on its queue. Debug builds stop when a lent connection
    /// or its statements are used outside a loan or by two threads; a connection never lent
    /// (a command's own) is not checked.
    package let use = ExclusiveUse("a SQLite connection")

    /// Opens a connection and applies the pragmas of `configuration`.
    ///
    /// The writer switches the file to WAL (https://www.sqlite.org/pragma.html#pragma_journal_mode)
    /// with `synchronous=FULL`; every connection turns on foreign keys and sets its busy timeout
    /// and cache size. The handle is closed if any step fails (https://www.sqlite.org/c3ref/open.html:
    /// "a database connection handle is usually returned … even if an error occurs").
    /// - Parameters:
    ///   - path: the database file; created `0600` for `.readWrite` (``PrivateFiles``).
    ///   - mode: `.readWrite` (the writer), `.readOnly` (a pool reader), `.immutable` (a
    ///     reader of a file on read-only storage) or `.unjournaled` (a backup's copy).
    ///   - configuration: busy timeout, cache and mmap sizes.
    package init(path: String, mode: Mode, configuration: DatabaseConfiguration = .init()) throws {
        _ = Self.libraryConfigured
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        var name = path
        switch mode {
        case .readWrite, .unjournaled: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .immutable:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = Self.immutableURI(path)
        }
        if mode == .readWrite || mode == .unjournaled { try PrivateFiles.prepareDatabase(at: path) }  // 0600, SPEC §12
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(name, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = SQLiteError(connection: connection, resultCode: code, sql: nil)
            sqlite3_close_v2(connection)
            throw error
        }
        self.handle = connection
        self.path = path
        self.mode = mode
        do {
            try setUp(configuration)
        } catch {
            statementCache.removeAll()
            throw error  // deinit closes the handle
        }
    }

    /// The URI filename (https://www.sqlite.org/uri.html) of the file at `path` with
    /// `immutable=1`: the absolute path with `%`, `?` and `#` percent-encoded, after an empty
    /// authority (`file://` + `/...`), so no path reads as a host or a query.
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var encoded = ""
        for character in absolute.unicodeScalars {
            switch character {
            case "%": encoded += "%25"
            case "?": encoded += "%3F"
            case "#": encoded += "%23"
            default: encoded.unicodeScalars.append(character)
            }
        }
        return "file://" + encoded + "?immutable=1"
    }

    /// Process-wide SQLite settings, applied once before the first connection opens: memory
    /// statistics off (nothing here reads them, and keeping them takes a global mutex on every
    /// SQLite allocation, a few per query, contended between the loops and the writer).
    private static let libraryConfigured: Bool = csqlite_disable_memory_statistics() == SQLITE_OK

    /// Whether the process-wide settings above took effect (they cannot once SQLite is in use).
    package static var isLibraryConfigured: Bool { libraryConfigured }

    /// Set by ``close()``.
    private(set) var isClosed = false

    /// Closes the connection now rather than at release: its statements are finalized, then the
    /// handle is closed (https://www.sqlite.org/c3ref/close.html). When the last connection to a
    /// WAL database closes, SQLite checkpoints it and deletes the `-wal` and `-shm` files
    /// (https://www.sqlite.org/wal.html). The owner must not use the connection afterwards;
    /// a second call does nothing.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        statementCache.removeAll()  // finalize cached statements before the connection
        slots.removeAll()
        sqlite3_close_v2(handle)
    }

    deinit { close() }

    private func setUp(_ configuration: DatabaseConfiguration) throws {
        try check(sqlite3_busy_timeout(handle, configuration.busyTimeoutMilliseconds), sql: nil)
        try execute("PRAGMA foreign_keys = ON")
        try execute("PRAGMA cache_size = -\(configuration.cacheSizeKiB)")
        try execute("PRAGMA temp_store = MEMORY")
        switch mode {
        case .readWrite:
            let journalMode = try withStatement("PRAGMA journal_mode = WAL") { statement in
                try statement.step() ? statement.string(at: 0) : nil
            }
            guard journalMode?.lowercased() == "wal" else {
                throw SQLiteError.generic(
                    "could not switch to WAL (journal_mode is \(journalMode ?? "unknown"))", sql: "PRAGMA journal_mode = WAL")
            }
            try execute("PRAGMA synchronous = FULL")
            // Deleted content is overwritten with zeros (https://www.sqlite.org/pragma.html#pragma_secure_delete):
            // an erased user's rows leave no trace in the file's free space (SPEC §11 Erasure).
            try execute("PRAGMA secure_delete = ON")
        case .unjournaled:
            let journalMode = try withStatement("PRAGMA journal_mode = OFF") { statement in
                try statement.step() ? statement.string(at: 0) : nil
            }
            guard journalMode?.lowercased() == "off" else {
                throw SQLiteError.generic(
                    "could not turn the journal off (journal_mode is \(journalMode ?? "unknown"))",
                    sql: "PRAGMA journal_mode = OFF")
            }
            try execute("PRAGMA synchronous = FULL")
        case .readOnly, .immutable:
            try execute("PRAGMA mmap_size = \(configuration.mmapSize)")
        }
    }

    /// Throws the connection's last error unless `code` is `SQLITE_OK`.
    @inline(__always)
    func check(_ code: Int32, sql: String?) throws {
        if code != SQLITE_OK { throw SQLiteError(connection: handle, resultCode: code, sql: sql) }
    }

    /// Runs one or more `;`-separated statements without parameters, stepping each to completion.
    /// - Parameter sql: the SQL text (https://www.sqlite.org/c3ref/prepare.html, using `pzTail`).
    package func execute(_ sql: String) throws {
        use.check()
        try sql.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var statementHandle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(handle, current, -1, &statementHandle, &tail)
                guard code == SQLITE_OK else {
                    let text = String(cString: current).drop { $0.isWhitespace || $0.isNewline }
                    throw SQLiteError(connection: handle, resultCode: code, sql: String(text))
                }
                next = tail
                guard let statementHandle else { continue }  // whitespace or a comment
                let statement = Statement(handle: statementHandle, connection: handle, use: use)
                while try statement.step() {}
            }
        }
    }

    /// Prepares a new statement that is not cached; it is finalized when released.
    /// - Parameter sql: one SQL statement, with `?` or `?NNN` placeholders.
    package func prepare(_ sql: String) throws -> Statement {
        var statementHandle: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statementHandle, nil)
        guard code == SQLITE_OK, let statementHandle else {
            if code == SQLITE_OK {
                throw SQLiteError.misuse("no statement in SQL text", sql: sql)
            }
            throw SQLiteError(connection: handle, resultCode: code, sql: sql)
        }
        return Statement(handle: statementHandle, connection: handle, use: use)
    }

    /// Returns the cached statement for `sql`, preparing it on first use.
    ///
    /// The caller must ``Statement/reset()`` it after use; ``withStatement(_:_:)`` does.
    package func cachedStatement(_ sql: String) throws -> Statement {
        use.check()
        textLookups &+= 1
        if let statement = statementCache[sql] { return statement }
        let statement = try prepare(sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs `body` with the cached statement for `sql`, then resets it and clears its bindings
    /// so that it holds no read snapshot and can be reused.
    /// - Parameters:
    ///   - sql: one SQL statement.
    ///   - body: binds, steps and reads columns.
    @inline(__always)
    package func withStatement<Result>(_ sql: String, _ body: (Statement) throws -> Result) throws -> Result {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        return try body(statement)
    }

    /// Runs `body` with this connection's statement for `slot` (prepared on first use), then
    /// resets it and clears its bindings, like ``withStatement(_:_:)``.
    @inline(__always)
    package func withStatement<Result>(_ slot: StatementSlot, _ body: (Statement) throws -> Result) throws -> Result {
        let statement = try statement(for: slot)
        defer { statement.reset() }
        return try body(statement)
    }

    @inline(__always)
    private func statement(for slot: StatementSlot) throws -> Statement {
        use.check()
        if slot.index < slots.count, let statement = slots[slot.index] { return statement }
        let statement = try prepare(slot.sql)
        if slot.index >= slots.count { slots.append(contentsOf: repeatElement(nil, count: slot.index + 1 - slots.count)) }
        slots[slot.index] = statement
        return statement
    }

    /// The number of statements in the cache.
    package var cachedStatementCount: Int { statementCache.count + slots.lazy.filter { $0 != nil }.count }

    /// Rows changed by the last INSERT, UPDATE or DELETE (https://www.sqlite.org/c3ref/changes.html).
    package var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The rowid of the last successful INSERT on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether the main database is read-only for this connection
    /// (https://www.sqlite.org/c3ref/db_readonly.html).
    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Whether a transaction is open (https://www.sqlite.org/c3ref/get_autocommit.html).
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Whether the main database file was deleted, renamed or replaced since this connection
    /// opened it (`SQLITE_FCNTL_HAS_MOVED`, https://www.sqlite.org/c3ref/c_fcntl_begin_atomic_write.html):
    /// every later write would go to a file no one opens again.
    package func fileHasMoved() throws -> Bool {
        var moved: Int32 = 0
        try check(sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved), sql: nil)
        return moved != 0
    }
}

@available(*, unavailable)
extension Database: Sendable {}
