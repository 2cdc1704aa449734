/// Transactions and savepoints (https://www.sqlite.org/lang_transaction.html,
/// https://www.sqlite.org/lang_savepoint.html). The statements are cached like any other.
extension Database {
    /// How a transaction takes its locks.
    package enum TransactionKind: Sendable {
        /// Takes a read snapshot at the first read; for consistent multi-statement reads.
        case deferred
        /// Takes the write lock at once, so it cannot fail later with `SQLITE_BUSY` on upgrade.
        case immediate
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws and
    /// rethrows the body's error (the first error wins over a failed rollback).
    /// - Parameters:
    ///   - kind: `.immediate` for writes, `.deferred` for reads.
    ///   - body: the work; it must not begin or end transactions itself (one that ends the
    ///     transaction stops the process: what it did after would not be part of it).
    package func inTransaction<Result>(_ kind: TransactionKind = .immediate, _ body: () throws -> Result) throws -> Result {
        try begin(kind)
        let result: Result
        do {
            result = try body()
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        precondition(isInTransaction, Self.endedTransaction("the body of inTransaction"))
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

    private static let beginDeferred = StatementSlot("BEGIN DEFERRED")
    private static let beginImmediate = StatementSlot("BEGIN IMMEDIATE")
    private static let commitTransaction = StatementSlot("COMMIT")
    private static let rollbackTransaction = StatementSlot("ROLLBACK")

    /// `BEGIN DEFERRED` or `BEGIN IMMEDIATE`.
    package func begin(_ kind: TransactionKind) throws {
        switch kind {
        case .deferred: try withStatement(Self.beginDeferred) { try $0.execute() }
        case .immediate: try withStatement(Self.beginImmediate) { try $0.execute() }
        }
    }

    /// `COMMIT`.
    package func commit() throws {
        try withStatement(Self.commitTransaction) { try $0.execute() }
    }

    /// `ROLLBACK`, when a transaction is still open; SQLite may already have rolled it back
    /// after an I/O or memory error (https://www.sqlite.org/lang_transaction.html#response_to_errors_within_a_transaction).
    package func rollback() throws {
        guard isInTransaction else { return }
        try withStatement(Self.rollbackTransaction) { try $0.execute() }
    }

    /// Rolls back after another error, which is the one reported: a rollback failure here
    /// leaves nothing more to undo (the connection is out of its transaction either way or will
    /// be rolled back when closed).
    func rollbackIgnoringErrors() {
        do {
            try rollback()
        } catch {
            // The caller rethrows the original error; this one adds nothing actionable.
        }
    }

    /// Runs `body` inside `SAVEPOINT name`: released when it returns, rolled back to (and
    /// released) when it throws, so only the body's changes are undone.
    /// - Parameters:
    ///   - name: an SQL identifier, fixed text from code (never input).
    ///   - body: the work.
    package func inSavepoint<Result>(_ name: String = "body", _ body: () throws -> Result) throws -> Result {
        try withStatement("SAVEPOINT \(name)") { try $0.execute() }
        do {
            let result = try body()
            try withStatement("RELEASE \(name)") { try $0.execute() }
            return result
        } catch {
            if isInTransaction {
                try withStatement("ROLLBACK TO \(name)") { try $0.execute() }
                try withStatement("RELEASE \(name)") { try $0.execute() }
            }
            throw error
        }
    }
}
