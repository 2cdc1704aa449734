import AuditKeys
internal import Ownership
import PermissionDomain

/// A read snapshot of ``PostgresPermissionStore/openSnapshot()``: one pooled connection inside
/// `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY` until ``close()``, read like
/// ``PostgresPermissionStore/read(_:)`` reads (through a ``PostgresReadSession`` on a replica
/// with a read model). Between calls no thread holds a loan of the connection
/// (``PostgresConnection/use``), so the next call may come from another thread; calls never
/// overlap (each holds the snapshot's lock). Released without ``close()``, it closes itself, so
/// the connection always returns to the pool.
///
/// `Sendable` as checked by the compiler: the session lives in a ``Guarded`` cell.
final class PostgresSnapshot: PermissionSnapshot {
    /// How the snapshot reads.
    enum Session {
        /// Through the replica's read model (what memory answers, as a read's session does).
        case modelled(PostgresReadSession)
        /// Straight from the connection (a store opened without a read model).
        case direct(PostgresConnection, AuditKeyring?)
    }

    private let pool: PostgresConnectionPool
    /// nil once closed.
    private let session: Guarded<Session?>

    /// Takes over `session`, whose transaction has begun and whose connection no thread holds a
    /// loan of.
    init(pool: PostgresConnectionPool, session: Session) {
        self.pool = pool
        self.session = Guarded(session)
    }

    /// - Throws: the body's error; ``PermissionError/unavailable(why:cause:)`` once closed, when
    ///   the database is lost, or when a lock wait timed out; other ``PostgresError``s.
    func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T {
        do {
            return try session.withLock { (access) throws -> T in
                switch access.state {
                case nil:
                    throw PermissionError.unavailable(why: "the read snapshot was closed")
                case .modelled(let session)?:
                    return try session.lent { try body(session) }
                case .direct(let connection, let keyring)?:
                    connection.use.enter()
                    defer { connection.use.leave() }
                    return try body(PostgresSession(connection: connection, keyring: keyring))
                }
            }
        } catch let error as PostgresError {
            throw PostgresPermissionStore.mapped(error)
        } catch let error as PostgresPoolTimeout {
            throw PermissionError.unavailable(why: error.description)
        }
    }

    /// Ends the transaction and returns the connection to the pool (or, on a thread where
    /// nothing may wait, returns it inside its transaction, which the pool closes rather than
    /// keeps: no round trip there).
    func close() {
        let taken = session.withLock { access -> Session? in
            defer { access.state = nil }
            return access.state
        }
        switch taken {
        case nil:
            return
        case .modelled(let session)?:
            session.finishFromAnyThread()
        case .direct(let connection, _)?:
            connection.use.enter()  // the checkin ends the loan
            if !QueueOwner.forbidsWaitingHere { connection.rollbackIgnoringErrors() }  // read only: nothing to keep
            pool.checkin(connection)
        }
    }

    deinit {
        close()
    }
}
