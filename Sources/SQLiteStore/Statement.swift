internal import CSQLite
internal import Ownership

/// A prepared statement (https://www.sqlite.org/c3ref/stmt.html).
///
/// Bind with 1-based indexes, ``step()`` until it returns `false`, read columns with 0-based
/// indexes, then ``reset()`` to reuse it. Text and blobs are bound with `SQLITE_TRANSIENT`, so
/// SQLite copies them and no Swift buffer has to outlive the call. A bind failure (a bad index,
/// a value too big) is remembered and thrown by the next ``step()``. The statement is finalized
/// when released.
package final class Statement {
    let handle: OpaquePointer
    /// The owning connection, for error messages; the statement never outlives its use there.
    let connection: OpaquePointer
    private var bindFailure: Int32 = SQLITE_OK
    /// Whether nothing was bound or stepped since the statement was prepared or last reset,
    /// so ``reset()`` has nothing to undo (a statement nested in helpers that each reset it is
    /// reset once). A statement has one owner at a time, the thread holding its connection's
    /// loan (checked through ``use`` in debug builds), so the run-time exclusivity check is skipped.
    @exclusivity(unchecked) private var pristine = true
    /// The connection's loans (``Database/use``).
    private let use: ExclusiveUse

    init(handle: OpaquePointer, connection: OpaquePointer, use: ExclusiveUse) {
        self.handle = handle
        self.connection = connection
        self.use = use
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The SQL text as prepared, with placeholders and without bound values.
    package var sql: String {
        sqlite3_sql(handle).map { String(cString: $0) } ?? ""
    }

    // MARK: Binding (https://www.sqlite.org/c3ref/bind_blob.html)

    @inline(__always)
    private func record(_ code: Int32) {
        pristine = false
        if code != SQLITE_OK && bindFailure == SQLITE_OK { bindFailure = code }
    }

    /// Binds an integer at a 1-based index.
    package func bind(_ value: Int64, at index: Int32) {
        record(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds an integer at a 1-based index.
    package func bind(_ value: Int, at index: Int32) {
        record(sqlite3_bind_int64(handle, index, Int64(value)))
    }

    /// Binds a Boolean as 0 or 1.
    package func bind(_ value: Bool, at index: Int32) {
        record(sqlite3_bind_int64(handle, index, value ? 1 : 0))
    }

    /// Binds a floating-point value.
    package func bind(_ value: Double, at index: Int32) {
        record(sqlite3_bind_double(handle, index, value))
    }

    /// Binds text, copied by SQLite (`SQLITE_TRANSIENT`).
    package func bind(_ value: String, at index: Int32) {
        var text = value
        let code = text.withUTF8 { bytes -> Int32 in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), csqlite_transient())
            }
        }
        record(code)
    }

    /// Runs `body` with the three texts bound at 1, 2 and 3 without copying them
    /// (`SQLITE_STATIC`): they stay valid only inside `body`, so the bindings are cleared before
    /// it returns. For the hot path, where SQLite's copies were three allocations per request.
    package func withTexts<Result>(
        _ first: String, _ second: String, _ third: String, _ body: (Statement) throws -> Result
    ) throws -> Result {
        var (first, second, third) = (first, second, third)
        return try first.withUTF8 { a in
            try second.withUTF8 { b in
                try third.withUTF8 { c in
                    bindStatic(a, at: 1)
                    bindStatic(b, at: 2)
                    bindStatic(c, at: 3)
                    defer { reset() }
                    return try body(self)
                }
            }
        }
    }

    private func bindStatic(_ text: UnsafeBufferPointer<UInt8>, at index: Int32) {
        guard let base = text.baseAddress, !text.isEmpty else {
            record(sqlite3_bind_text(handle, index, "", 0, csqlite_transient()))  // empty text, not NULL
            return
        }
        let code = base.withMemoryRebound(to: CChar.self, capacity: text.count) {
            sqlite3_bind_text(handle, index, $0, Int32(text.count), csqlite_static())
        }
        record(code)
    }

    /// Binds a blob, copied by SQLite (`SQLITE_TRANSIENT`).
    package func bind(blob value: [UInt8], at index: Int32) {
        let code = value.withUnsafeBytes { bytes in
            sqlite3_bind_blob(
                handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), csqlite_transient())
        }
        record(code)
    }

    /// Binds SQL NULL.
    package func bindNull(at index: Int32) {
        record(sqlite3_bind_null(handle, index))
    }

    /// Binds text or NULL.
    package func bind(_ value: String?, at index: Int32) {
        if let value { bind(value, at: index) } else { bindNull(at: index) }
    }

    /// Binds an integer or NULL.
    package func bind(_ value: Int64?, at index: Int32) {
        if let value { bind(value, at: index) } else { bindNull(at: index) }
    }

    /// Binds a dynamic value.
    package func bind(_ value: SQLValue, at index: Int32) {
        switch value {
        case .integer(let integer): bind(integer, at: index)
        case .real(let real): bind(real, at: index)
        case .text(let text): bind(text, at: index)
        case .blob(let bytes): bind(blob: bytes, at: index)
        case .null: bindNull(at: index)
        }
    }

    /// Binds `values` at indexes 1, 2, …
    package func bind(_ values: [SQLValue]) {
        for (offset, value) in values.enumerated() { bind(value, at: Int32(offset + 1)) }
    }

    // MARK: Stepping (https://www.sqlite.org/c3ref/step.html)

    /// Advances to the next row: `true` when a row is available, `false` when done.
    /// - Throws: ``SQLiteError`` with the statement's SQL (never its bound values).
    @inline(__always)
    package func step() throws -> Bool {
        use.check()
        if bindFailure != SQLITE_OK {
            let code = bindFailure
            bindFailure = SQLITE_OK
            throw SQLiteError(connection: connection, resultCode: code, sql: sql)
        }
        pristine = false
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw SQLiteError(connection: connection, resultCode: code, sql: sql)
    }

    /// Steps to completion, ignoring any rows (INSERT, UPDATE, DELETE, DDL).
    package func execute() throws {
        while try step() {}
    }

    /// Resets the statement and clears its bindings, so it can run again
    /// (https://www.sqlite.org/c3ref/reset.html). The error of a failed step was already thrown
    /// by ``step()``, so the code `sqlite3_reset` repeats is not reported again. Does nothing
    /// on a statement already reset.
    package func reset() {
        use.check()
        guard !pristine else { return }
        pristine = true
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        bindFailure = SQLITE_OK
    }

    // MARK: Columns (https://www.sqlite.org/c3ref/column_blob.html)

    /// The number of columns in a result row.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Whether the column of the current row is NULL.
    @inline(__always)
    package func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The column as an integer (NULL reads as 0).
    @inline(__always)
    package func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The column as an `Int` (NULL reads as 0).
    @inline(__always)
    package func int(at index: Int32) -> Int {
        Int(sqlite3_column_int64(handle, index))
    }

    /// The column as an integer, or nil when NULL.
    package func optionalInt64(at index: Int32) -> Int64? {
        isNull(at: index) ? nil : sqlite3_column_int64(handle, index)
    }

    /// The column as a Boolean (non-zero is true).
    package func bool(at index: Int32) -> Bool {
        sqlite3_column_int64(handle, index) != 0
    }

    /// The column as a floating-point value.
    package func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// The column as UTF-8 text, or nil when NULL.
    @inline(__always)
    package func string(at index: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as it is stored, in its storage class (for copying rows whatever their table).
    package func value(at index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: .text(string(at: index) ?? "")
        case SQLITE_BLOB: .blob(blob(at: index) ?? [])
        default: .null
        }
    }

    /// The column as bytes, or nil when NULL.
    package func blob(at index: Int32) -> [UInt8]? {
        if isNull(at: index) { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
