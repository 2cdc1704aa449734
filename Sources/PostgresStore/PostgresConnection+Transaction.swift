internal import CLibPQ
internal import Ownership

/// Transactions (https://www.postgresql.org/docs/15/sql-begin.html).
extension PostgresConnection {
    /// The isolation level a transaction runs at
    /// (https://www.postgresql.org/docs/15/transaction-iso.html).
    package enum IsolationLevel: Sendable {
        case readCommitted
        case repeatableRead
        case serializable

        var sql: String {
            switch self {
            case .readCommitted: "BEGIN ISOLATION LEVEL READ COMMITTED"
            case .repeatableRead: "BEGIN ISOLATION LEVEL REPEATABLE READ"
            case .serializable: "BEGIN ISOLATION LEVEL SERIALIZABLE"
            }
        }
    }

    /// Whether a transaction is open, also one a failed statement has aborted
    /// (`PQtransactionStatus` is `PQTRANS_INTRANS` or `PQTRANS_INERROR`).
    package var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws and
    /// rethrows the body's error (the first error wins over a failed rollback).
    ///
    /// A statement that failed inside the body aborts the transaction even when the body
    /// caught its error; PostgreSQL then answers `COMMIT` with `ROLLBACK`, and this throws.
    /// A serializable transaction may fail at the commit itself (40001: run it again).
    /// - Parameters:
    ///   - isolation: the isolation level.
    ///   - body: the work; it must not begin or end transactions itself. One that ends the
    ///     transaction stops the process: PostgreSQL would take the `COMMIT` after it with a
    ///     warning, and what the body did after its own end would not be part of it.
    package func inTransaction<Result>(_ isolation: IsolationLevel = .readCommitted, _ body: () throws -> Result) throws -> Result
    {
        precondition(!isInTransaction, "inTransaction inside a transaction")
        try execute(isolation.sql)
        let result: Result
        do {
            result = try body()
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        // A connection lost after the body's last statement has no transaction status; the
        // COMMIT then fails.
        precondition(isInTransaction || !isConnected, Self.endedTransaction("the body of inTransaction"))
        do {
            try commit()
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        return result
    }

    /// The message of the precondition that a body left its transaction open.
    static func endedTransaction(_ body: String) -> String {
        "\(body) ended the transaction it runs in; only its caller may"
    }

    /// `COMMIT`; throws when the server rolled back instead (the transaction had failed).
    package func commit() throws {
        QueueOwner.assertMayWait("a PostgreSQL round trip")
        let result = try roundTrip(sql: "COMMIT") { PQsendQuery(handle, "COMMIT") }
        defer { PQclear(result) }
        try check(result, sql: "COMMIT")
        let tag = PQcmdStatus(result).map { String(cString: $0) }
        guard tag == "COMMIT" else {
            throw PostgresError(
                sqlState: "25P02", message: "the transaction was rolled back: a statement in it had failed", sql: "COMMIT")
        }
    }

    /// ``commit()`` for a transaction whose outcome matters: a lost connection becomes
    /// ``PostgresCommitOutcomeUnknown`` (never retried); any other failure rolls back and
    /// rethrows.
    func commitOrReportUnknownOutcome() throws {
        do {
            try commit()
        } catch let error as PostgresError where error.isConnectionFailure {
            throw PostgresCommitOutcomeUnknown(underlying: error)
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
    }

    /// `ROLLBACK`, when a transaction is open.
    package func rollback() throws {
        guard isInTransaction else { return }
        try execute("ROLLBACK")
    }

    /// Rolls back after another error, which is the one reported: when the rollback fails the
    /// connection is broken, and the server ends the transaction when the session ends.
    func rollbackIgnoringErrors() {
        do {
            try rollback()
        } catch {
            // The caller rethrows the original error; this one adds nothing actionable.
        }
    }
}
