internal import CSQLite

/// Application-defined SQL functions (https://www.sqlite.org/appfunc.html).
extension Database {
    /// The arguments of one call of a function registered with ``addFunction(_:arguments:_:)``,
    /// valid only during that call.
    struct FunctionArguments {
        fileprivate let values: UnsafeMutablePointer<OpaquePointer?>?
        let count: Int

        /// Argument `index` as text (UTF-8), nil when it is NULL.
        func text(at index: Int) -> String? {
            precondition(index >= 0 && index < count, "argument \(index) of a function that takes \(count)")
            guard let value = values?[index], sqlite3_value_type(value) != SQLITE_NULL,
                let text = sqlite3_value_text(value)
            else { return nil }
            let length = Int(sqlite3_value_bytes(value))  // after sqlite3_value_text: the text's length
            return String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self)
        }
    }

    /// What the connection keeps for a function: its body, released by SQLite when the
    /// function is replaced or the connection closes.
    private final class FunctionBody {
        let body: (FunctionArguments) -> Void
        init(_ body: @escaping (FunctionArguments) -> Void) { self.body = body }
    }

    /// Registers `name`, taking exactly `arguments` arguments and returning NULL, on this
    /// connection only: SQL (a temporary trigger's `SELECT name(...)`) calls `body` on the thread
    /// that steps the statement, inside the step, which checks the connection's loan in debug
    /// builds. Not deterministic: SQLite calls it once for every row that reaches it.
    /// - Throws: `SQLiteError` when SQLite refuses the registration.
    func addFunction(_ name: String, arguments: Int, _ body: @escaping (FunctionArguments) -> Void) throws {
        use.check()
        let retained = Unmanaged.passRetained(FunctionBody(body)).toOpaque()
        // On failure SQLite calls the destructor itself (https://www.sqlite.org/c3ref/create_function.html).
        let code = sqlite3_create_function_v2(
            handle, name, Int32(arguments), SQLITE_UTF8, retained,
            { context, count, values in
                guard let context, let data = sqlite3_user_data(context) else { return }
                let function = Unmanaged<FunctionBody>.fromOpaque(data).takeUnretainedValue()
                function.body(FunctionArguments(values: values, count: Int(count)))
                sqlite3_result_null(context)
            },
            nil, nil,
            { data in
                guard let data else { return }
                Unmanaged<FunctionBody>.fromOpaque(data).release()
            })
        guard code == SQLITE_OK else {
            throw SQLiteError(connection: handle, resultCode: code, sql: "sqlite3_create_function_v2(\(name))")
        }
    }
}
