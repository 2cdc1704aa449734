import AuditKeys
internal import Ownership
import PermissionDomain

/// A read snapshot of ``PostgresPermissionStore/openSnapshot()``: one pooled connection inside
/// `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY` until ``close()``, read straight from the
/// database (``PostgresSession``), never from the replica's read model: what it shows is
/// exactly its snapshot, and a long read leaves the model's cache as it was. Between calls no
/// thread holds a loan of the connection (``PostgresConnection/use``), so the next call may come
/// from another thread; calls never overlap (each holds the snapshot's lock). Released without
/// ``close()``, it closes itself, so the connection always returns to the pool.
///
/// `Sendable` as checked by the compiler: the connection lives in a ``Guarded`` cell.
final class PostgresSnapshot: PermissionSnapshot {
    private let pool: PostgresConnectionPool
    private let keyring: AuditKeyring?
    /// nil once closed.
    private let connection: Guarded<PostgresConnection?>
    /// Called once, when the connection has gone back to the pool.
    private let onClose: @Sendable () -> Void

    /// Takes over `connection`, checked out of `pool`, whose transaction has begun and which no
    /// thread holds a loan of.
    /// - Parameter onClose: called once, after the connection went back to the pool.
    init(
        pool: PostgresConnectionPool, connection: PostgresConnection, keyring: AuditKeyring?,
        onClose: @escaping @Sendable () -> Void
    ) {
        self.pool = pool
        self.keyring = keyring
        self.connection = Guarded(connection)
        self.onClose = onClose
    }

    /// - Throws: the body's error; ``PermissionError/unavailable(why:cause:)`` once closed, when
    ///   the database is lost, or when a lock wait timed out; other ``PostgresError``s.
    func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T {
        do {
            return try connection.withLock { (access) throws -> T in
                guard let connection = access.state else {
                    throw PermissionError.unavailable(why: "the read snapshot was closed")
                }
                connection.use.enter()
                defer { connection.use.leave() }
                return try body(PostgresSession(connection: connection, keyring: keyring))
            }
        } catch let error as PostgresError {
            throw PostgresPermissionStore.mapped(error)
        }
    }

    /// Ends the transaction and returns the connection to the pool. On a thread where nothing
    /// may wait (an event loop releasing a response that was never sent) it skips the round
    /// trip of the `ROLLBACK`: the pool closes a connection returned inside its transaction,
    /// which ends the transaction on the server.
    func close() {
        let taken = connection.withLock { access -> PostgresConnection? in
            defer { access.state = nil }
            return access.state
        }
        guard let taken else { return }
        taken.use.enter()  // the checkin ends the loan
        if !QueueOwner.forbidsWaitingHere { taken.rollbackIgnoringErrors() }  // read only: nothing to keep
        pool.checkin(taken)
        onClose()
    }

    deinit {
        close()
    }
}
