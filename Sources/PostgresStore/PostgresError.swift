/// An error from PostgreSQL or from libpq.
///
/// It carries the SQLSTATE when the server sent one
/// (https://www.postgresql.org/docs/15/errcodes-appendix.html), the primary message, and the SQL
/// text of the statement as written, with `$n` placeholders. Bound values are never part of it:
/// the server's DETAIL (which repeats key values) is left out, and a bound value the primary
/// message quotes (`invalid input syntax for type bigint: "..."`) is replaced by `***`. A
/// connection string is only kept redacted (``ConnectionString/redacted(_:)``), so the error is
/// safe to log (STYLE 8).
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE, e.g. `23505`; nil when the error came from libpq itself
    /// (a failed connection, a lost one) or from this wrapper's own checks, except for a
    /// `COMMIT` the server answered with `ROLLBACK` (`25P02`, in_failed_sql_transaction).
    public let sqlState: String?
    /// The primary message.
    public let message: String
    /// The SQL text, with placeholders, of the statement that failed, when there was one.
    public let sql: String?
    /// The constraint the error is about (`PG_DIAG_CONSTRAINT_NAME`), e.g. for a unique violation.
    public let constraint: String?
    /// The connection string, redacted, when the error is about connecting.
    public let connection: String?
    /// Whether the connection was unusable (`CONNECTION_BAD`) after the error.
    public let isConnectionBad: Bool
    /// Whether the server did not answer within the connection's answer timeout (the
    /// connection was given up, `isConnectionBad`): a database that stopped answering, which
    /// another connection at once would not find answering either, so it is not retried.
    public let isAnswerTimeout: Bool

    /// Creates an error from its parts. `connection` is redacted here, whatever the caller passes.
    public init(
        sqlState: String? = nil, message: String, sql: String? = nil, constraint: String? = nil,
        connection: String? = nil, isConnectionBad: Bool = false, isAnswerTimeout: Bool = false
    ) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
        self.constraint = constraint
        self.connection = connection.map(ConnectionString.redacted)
        self.isConnectionBad = isConnectionBad || isAnswerTimeout
        self.isAnswerTimeout = isAnswerTimeout
    }

    /// `40001` serialization_failure: a serializable or repeatable-read transaction lost a race;
    /// run it again.
    public var isSerializationFailure: Bool { sqlState == "40001" }
    /// `40P01` deadlock_detected: the server aborted this transaction to break a deadlock.
    public var isDeadlock: Bool { sqlState == "40P01" }
    /// Whether running the whole transaction again may succeed: a serialization failure or a
    /// deadlock (https://www.postgresql.org/docs/15/mvcc-serialization-failure-handling.html).
    public var isRetryableTransactionFailure: Bool { isSerializationFailure || isDeadlock }
    /// `23505` unique_violation.
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// The connection failed or is gone: class `08` (connection exception), `57P01`-`57P03`
    /// (the server is shutting down or cannot accept connections yet), `25P03` (the server
    /// ended a session idle in its transaction too long), or libpq reports the connection as
    /// `CONNECTION_BAD` (a failed connect, a dropped socket).
    public var isConnectionFailure: Bool {
        if isConnectionBad { return true }
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03"
            || sqlState == "25P03"
    }

    public var description: String {
        var text = "PostgreSQL error"
        if let sqlState { text += " \(sqlState)" }
        text += ": \(message)"
        if let constraint { text += " (constraint: \(constraint))" }
        if let sql { text += " (SQL: \(sql))" }
        if let connection { text += " (connecting to: \(connection))" }
        return text
    }
}
