internal import CLibPQ
internal import Ownership

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One PostgreSQL connection through libpq (https://www.postgresql.org/docs/15/libpq.html).
///
/// A connection has exactly one owner at a time (whoever checked it out of a pool), so it is
/// not `Sendable`; libpq itself is thread-safe across distinct connections. It prepares each
/// ``PreparedStatement`` once, the first time it runs it, and keeps it for its lifetime. Calls
/// block the calling thread until the server answers, or until ``answerTimeout`` passes without
/// the whole answer: the connection is then abandoned (closed when released, never reused) and
/// the call fails as a lost connection. TCP keepalives and `tcp_user_timeout` end a connection
/// whose peer is gone; they cannot end one to a server that is there and does not answer (a
/// stopped process, a stalled disk, a hung pooler), whose kernel acknowledges every packet.
package final class PostgresConnection {
    /// The `PGconn*` handle.
    let handle: OpaquePointer
    /// The connection string, password hidden (``ConnectionString/redacted(_:)``).
    package let redactedConnectionString: String
    /// The statements prepared on this connection: their name and number of parameters
    /// (``undescribed`` while not known).
    var prepared: [String: Int] = [:]
    /// The pool lends the connection to one thread at a time; debug builds check every call
    /// against the loan (a connection that was never lent, like the change follower's, is not checked).
    let use = ExclusiveUse("a PostgreSQL connection")
    /// The longest one round trip (a statement, a `COMMIT`) may take to be answered whole; nil
    /// waits for ever (the operator commands, migrations). Set by a serving store's pool.
    package var answerTimeout: Duration?
    /// Set when a round trip was abandoned at ``answerTimeout``: the server may still answer it
    /// later, so the connection is never used again (``isConnected`` is false).
    private(set) var abandoned = false

    /// The `application_name` a connection reports unless its connection string sets one
    /// (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNECT-FALLBACK-APPLICATION-NAME).
    package static let defaultApplicationName = "permission-service"
    /// How long connecting may take unless the connection string sets `connect_timeout`.
    package static let defaultConnectTimeoutSeconds = 5

    /// Connects (`PQconnectdbParams`) and checks that the connection is usable (`PQstatus`).
    ///
    /// `connectTimeoutSeconds`, `applicationName` and the TCP keepalive settings are defaults
    /// the connection string can override; `client_encoding` is always UTF8, since text is read and written as UTF-8.
    /// On failure the handle is finished and the error holds the connection string redacted,
    /// with any password that libpq's message quotes replaced by `***`.
    /// - Parameters:
    ///   - conninfo: a `key=value` connection string or a `postgres://` URI; empty uses libpq's
    ///     environment defaults (`PGHOST`, `PGPASSWORD`, ...).
    ///   - applicationName: `fallback_application_name`.
    ///   - connectTimeoutSeconds: the default `connect_timeout` (libpq treats 1 as 2).
    package init(
        _ conninfo: String, applicationName: String = PostgresConnection.defaultApplicationName,
        connectTimeoutSeconds: Int = PostgresConnection.defaultConnectTimeoutSeconds
    ) throws {
        precondition(PQisthreadsafe() == 1, "libpq must be built thread-safe")
        // Entries before `dbname` are defaults the expanded connection string overrides;
        // entries after it override the string (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-PQCONNECTDBPARAMS).
        // TCP keepalives and a user timeout bound how long a call waits on a database that
        // stopped answering without closing the connection (a network cut): about 10 s, after
        // which the call fails as a lost connection (503) instead of hanging its writers.
        let parameters = [
            ("connect_timeout", String(connectTimeoutSeconds)),
            ("keepalives", "1"),
            ("keepalives_idle", "5"),
            ("keepalives_interval", "2"),
            ("keepalives_count", "3"),
            ("tcp_user_timeout", "10000"),
            ("fallback_application_name", applicationName),
            ("dbname", conninfo),
            ("client_encoding", "UTF8"),
        ]
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        QueueOwner.assertMayWait("a connection to PostgreSQL")
        let connection = (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keywordPointers in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { valuePointers in
                PQconnectdbParams(keywordPointers.baseAddress, valuePointers.baseAddress, 1)
            }
        }
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { Self.lastMessage(of: $0) } ?? "out of memory"
            PQfinish(connection)
            throw PostgresError(
                message: ConnectionString.scrub(message, passwordsOf: conninfo), connection: conninfo,
                isConnectionBad: true)
        }
        clibpq_ignore_notices(connection)
        // Non-blocking, so that sending is bounded by the answer timeout too (``roundTrip``).
        guard PQsetnonblocking(connection, 1) == 0 else {
            let message = Self.lastMessage(of: connection)
            PQfinish(connection)
            throw PostgresError(message: message, connection: conninfo, isConnectionBad: true)
        }
        handle = connection
        redactedConnectionString = ConnectionString.redacted(conninfo)
    }

    deinit { PQfinish(handle) }

    /// Whether libpq still considers the connection usable (`PQstatus` is `CONNECTION_OK`); a
    /// dropped socket shows here only after a call has failed on it.
    package var isConnected: Bool { !abandoned && PQstatus(handle) == CONNECTION_OK }

    /// The value of connection option `keyword` as this connection uses it (`PQconninfo`), nil
    /// when unset or unknown.
    package func option(_ keyword: String) -> String? {
        guard let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var index = 0
        while let name = options[index].keyword {
            if String(cString: name) == keyword { return options[index].val.map { String(cString: $0) } }
            index += 1
        }
        return nil
    }

    /// The server's version as an integer, e.g. 150018 for 15.18 (`PQserverVersion`).
    package var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// The process ID of the server process serving this connection (`PQbackendPID`).
    package var backendPID: Int32 { PQbackendPID(handle) }

    /// Runs one or more `;`-separated statements without parameters (`PQexec`); rows they
    /// return are dropped. Use it for fixed SQL only: values go through a ``PreparedStatement``.
    package func execute(_ sql: String) throws {
        use.check()
        QueueOwner.assertMayWait("a PostgreSQL round trip")
        let result = try roundTrip(sql: sql) { PQsendQuery(handle, sql) }
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// Runs `statement` with `parameters` and returns its rows.
    /// - Parameters:
    ///   - statement: prepared on this connection on first use.
    ///   - parameters: one per placeholder, in order.
    package func query(_ statement: PreparedStatement, _ parameters: [PostgresValue] = []) throws -> PostgresRows {
        let result = try run(statement, parameters)
        return PostgresRows(result: result, sql: statement.sql)
    }

    /// Runs `statement` with `parameters` and returns the number of rows it inserted, updated
    /// or deleted (`PQcmdTuples`; 0 for other commands).
    @discardableResult
    package func execute(_ statement: PreparedStatement, _ parameters: [PostgresValue] = []) throws -> Int {
        let result = try run(statement, parameters)
        defer { PQclear(result) }
        return PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
    }

    /// Whether `statement` has been prepared on this connection.
    package func isPrepared(_ statement: PreparedStatement) -> Bool { prepared[statement.name] != nil }

    /// Prepares (once) and executes with text parameters (`PQexecPrepared`); returns the
    /// successful result, which the caller clears.
    private func run(_ statement: PreparedStatement, _ parameters: [PostgresValue]) throws -> OpaquePointer {
        use.check()
        QueueOwner.assertMayWait("a PostgreSQL round trip")
        let expected = try prepareIfNeeded(statement)
        guard parameters.count == expected else {
            // Checked here: the server would answer a protocol violation (08P01), which reads
            // like a lost connection.
            throw PostgresError(
                message: "\(parameters.count) parameters given, the statement takes \(expected)", sql: statement.sql)
        }
        let texts = parameters.map(\.textFormat)
        // libpq takes C strings: a NUL would silently cut the value short.
        if texts.contains(where: { $0?.utf8.contains(0) == true }) {
            throw PostgresError(message: "a text parameter contains a NUL character", sql: statement.sql)
        }
        let copies = texts.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let result = try roundTrip(sql: statement.sql) {
            copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
                PQsendQueryPrepared(handle, statement.name, Int32(parameters.count), values.baseAddress, nil, nil, 0)
            }
        }
        do {
            try check(result, sql: statement.sql, parameters: texts.compactMap { $0 })
        } catch {
            PQclear(result)
            throw error
        }
        guard let result else { throw error(nil, sql: statement.sql, parameters: []) }
        return result
    }

    /// Prepares `statement` unless this connection already has (`PQprepare`, then
    /// `PQdescribePrepared` for its number of parameters); returns that number. A statement
    /// prepared whose description failed (a cancel, a timeout in between) is known to be there:
    /// the next use describes it again rather than preparing it twice (`42P05`).
    private func prepareIfNeeded(_ statement: PreparedStatement) throws -> Int {
        if let count = prepared[statement.name], count >= 0 { return count }
        if prepared[statement.name] == nil {
            let result = try roundTrip(sql: statement.sql) { PQsendPrepare(handle, statement.name, statement.sql, 0, nil) }
            defer { PQclear(result) }
            try check(result, sql: statement.sql)
            prepared[statement.name] = Self.undescribed
        }
        let description = try roundTrip(sql: statement.sql) { PQsendDescribePrepared(handle, statement.name) }
        defer { PQclear(description) }
        try check(description, sql: statement.sql)
        let count = Int(PQnparams(description))
        prepared[statement.name] = count
        return count
    }

    /// What ``prepared`` holds for a statement prepared on this connection but not described.
    static let undescribed = -1

    /// Sends one command with `send` (a `PQsend…` call) and waits for its whole answer, as the
    /// blocking `PQexec` family does, but at most ``answerTimeout``, its sending included (the
    /// connection is non-blocking): the results in order, of which it returns the first that
    /// failed, else the last (what `PQexec` returns; the caller clears it). Past the timeout the
    /// connection is ``abandoned``.
    /// - Throws: ``PostgresError`` when the command cannot be sent or the connection fails
    ///   while waiting (`isConnectionBad`), or when no whole answer came in time
    ///   (`isAnswerTimeout`).
    func roundTrip(sql: String, _ send: () -> Int32) throws -> OpaquePointer? {
        guard !abandoned else {
            // A rollback after the timeout, say: the pool closes the connection on its return.
            throw PostgresError(
                message: "the connection was given up at its answer timeout", sql: sql, isAnswerTimeout: true)
        }
        guard send() == 1 else { throw error(nil, sql: sql, parameters: []) }
        let deadline = answerTimeout.map { ContinuousClock.now.advanced(by: $0) }
        var kept: OpaquePointer?
        // A command in flight that fails on its way (the socket broke, the time ran out) leaves
        // the connection mid-exchange: never to be used again.
        func failed(_ error: any Error) -> any Error {
            PQclear(kept)
            abandoned = true
            return error
        }
        // Non-blocking: a command larger than the socket's buffer goes out as it drains.
        while true {
            let flushed = PQflush(handle)
            if flushed == 0 { break }
            guard flushed > 0 else { throw failed(error(nil, sql: sql, parameters: [], connectionBad: true)) }
            do {
                try wait(for: Int16(POLLIN | POLLOUT), until: deadline, sql: sql)
            } catch {
                throw failed(error)
            }
            guard PQconsumeInput(handle) == 1 else { throw failed(error(nil, sql: sql, parameters: [], connectionBad: true)) }
        }
        var resultFailed = false
        while true {
            while PQisBusy(handle) == 1 {
                do {
                    try wait(for: Int16(POLLIN), until: deadline, sql: sql)
                } catch {
                    throw failed(error)
                }
                guard PQconsumeInput(handle) == 1 else { throw failed(error(nil, sql: sql, parameters: [], connectionBad: true)) }
            }
            guard let result = PQgetResult(handle) else { return kept }
            if resultFailed {
                PQclear(result)  // after a failure the rest is read and dropped
                continue
            }
            let status = PQresultStatus(result)
            PQclear(kept)
            kept = result
            resultFailed = status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY
        }
    }

    /// Waits until the connection's socket may be ready for `events`, at most until
    /// `deadline`. Over TLS it returns at least every 50 ms: OpenSSL may hold decrypted bytes
    /// of the answer that the socket no longer shows (`PQconsumeInput` reads one record at a
    /// time), which only reading again finds, so the caller reads after every slice.
    /// - Throws: ``PostgresError`` (`isAnswerTimeout`) at the deadline.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant?, sql: String) throws {
        var descriptor = pollfd(fd: PQsocket(handle), events: events, revents: 0)
        let slice: Int32? = PQsslInUse(handle) == 1 ? 50 : nil
        while true {
            var milliseconds = slice ?? -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left > .zero else {
                    throw PostgresError(
                        message: "PostgreSQL did not answer within \(answerTimeout ?? .zero); the connection was given up",
                        sql: sql, isAnswerTimeout: true)
                }
                let leftMilliseconds = Int32(clamping: (left.nanoseconds + 999_999) / 1_000_000)
                milliseconds = slice.map { min($0, leftMilliseconds) } ?? leftMilliseconds
            }
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 || (ready == 0 && slice != nil) { return }
            if ready < 0 && errno != EINTR { throw error(nil, sql: sql, parameters: [], connectionBad: true) }
        }
    }

    /// Throws unless `result` reports success (`PGRES_COMMAND_OK`, `PGRES_TUPLES_OK`, or
    /// `PGRES_EMPTY_QUERY` for SQL that is only comments).
    func check(_ result: OpaquePointer?, sql: String, parameters: [String] = []) throws {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: throw error(result, sql: sql, parameters: parameters)
        }
    }

    /// The error `result` reports (or the connection's last one when there is no result),
    /// with every bound value the message quotes (`"value"`) replaced by `"***"`.
    func error(_ result: OpaquePointer?, sql: String, parameters: [String], connectionBad: Bool = false) -> PostgresError {
        func field(_ code: Int32) -> String? {
            result.flatMap { PQresultErrorField($0, code) }.map { String(cString: $0) }
        }
        var message = field(clibpq_diag_message_primary()) ?? Self.lastMessage(of: handle)
        if message.isEmpty { message = "unexpected result status \(PQresultStatus(result).rawValue)" }
        for value in parameters.sorted(by: { $0.count > $1.count }) {
            message = message.replacingAll("\"\(value)\"", with: "\"***\"")
        }
        return PostgresError(
            sqlState: field(clibpq_diag_sqlstate()), message: message, sql: sql,
            constraint: field(clibpq_diag_constraint_name()),
            isConnectionBad: connectionBad || PQstatus(handle) == CONNECTION_BAD)
    }

    /// `PQerrorMessage`, without its trailing newline.
    static func lastMessage(of connection: OpaquePointer) -> String {
        var message = PQerrorMessage(connection).map { String(cString: $0) } ?? ""
        while message.last?.isNewline == true { message.removeLast() }
        return message
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}
