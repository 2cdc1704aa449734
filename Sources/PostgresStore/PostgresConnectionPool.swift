import Foundation
internal import Ownership

/// A small pool of ``PostgresConnection``s, opened lazily up to ``capacity``; a checkout waits
/// (up to ``checkoutTimeout``) for one to come back once all are out, or once the server
/// refuses to open another while some are out (its connection limits are shared by every
/// client: a replica below its own capacity can still meet them).
///
/// ``withConnection(_:)`` returns the connection on every path. A connection that libpq reports
/// as broken (a lost socket, a terminated backend: the failed call leaves it `CONNECTION_BAD`),
/// or that is still inside a transaction, is closed instead of kept; the next checkout opens a
/// new one.
///
/// `Sendable` as checked by the compiler: the free list lives in a ``Guarded`` cell. Each
/// checkout is a loan of the connection (``PostgresConnection/use``): in debug builds a
/// connection touched outside its loan, or by two threads, stops the process.
final class PostgresConnectionPool: Sendable {
    /// The connection string; never logged (the password).
    private let conninfo: String
    /// At most this many connections are open.
    let capacity: Int
    /// How long a checkout waits for a free connection, in seconds.
    let checkoutTimeout: Double
    /// SQL run once on each new connection (session settings).
    private let setUp: String
    /// Each new connection's ``PostgresConnection/answerTimeout``.
    private let answerTimeout: Duration?

    private struct State {
        var idle: [PostgresConnection] = []
        /// Idle + checked out + being opened.
        var openCount = 0
    }

    private let guarded = Guarded(State())

    /// - Parameters:
    ///   - conninfo: a libpq connection string or URI.
    ///   - capacity: the most connections open at once (at least 1).
    ///   - checkoutTimeout: seconds a checkout waits when every connection is out.
    ///   - setUp: SQL run on each new connection, e.g. `SET lock_timeout = '5s'`.
    ///   - answerTimeout: each connection's longest wait for an answer; nil for none.
    init(conninfo: String, capacity: Int, checkoutTimeout: Double, setUp: String, answerTimeout: Duration? = nil) {
        precondition(capacity >= 1, "a pool holds at least one connection")
        self.conninfo = conninfo
        self.capacity = capacity
        self.checkoutTimeout = checkoutTimeout
        self.setUp = setUp
        self.answerTimeout = answerTimeout
    }

    /// The number of open connections (idle and checked out), for tests.
    var openConnections: Int { guarded.withLock { $0.state.openCount } }

    /// The number of connections checked out now (or being opened), for tests.
    var checkedOutCount: Int { guarded.withLock { $0.state.openCount - $0.state.idle.count } }

    /// Runs `body` with a connection of its own, returned to the pool afterwards (or closed
    /// when broken or left in a transaction).
    /// - Throws: ``PostgresPoolTimeout``, a ``PostgresError`` from connecting, or the body's error.
    func withConnection<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        let connection = try checkout()
        defer { checkin(connection) }
        return try body(connection)
    }

    /// A connection of the caller's own until ``checkin(_:)``; prefer ``withConnection(_:)``.
    func checkout() throws -> PostgresConnection {
        let deadline = ContinuousClock.now + .seconds(checkoutTimeout)
        let reused = try guarded.withLock { (access) throws(PostgresPoolTimeout) -> PostgresConnection? in
            while access.state.idle.isEmpty && access.state.openCount >= capacity {
                guard access.wait(until: deadline) else {
                    throw PostgresPoolTimeout(capacity: capacity, seconds: checkoutTimeout)
                }
            }
            if let connection = access.state.idle.popLast() { return connection }
            access.state.openCount += 1
            return nil
        }
        if let reused {
            reused.use.enter()
            return reused
        }
        do {
            let connection = try PostgresConnection(conninfo)
            connection.answerTimeout = answerTimeout
            connection.use.enter()
            if !setUp.isEmpty { try connection.execute(setUp) }
            return connection
        } catch let error as PostgresError where error.isConnectionFailure {
            // The server refused one more connection while this pool holds others (its
            // max_connections, or the role's or database's CONNECTION LIMIT, reached by all
            // its clients together): wait for one of ours to come back rather than fail a
            // request a moment before it would. With none open, or none back by the deadline
            // (a database that is gone fails the busy ones too), the refusal stands.
            let returned = guarded.withLock { access -> PostgresConnection? in
                access.state.openCount -= 1
                access.signal()
                while access.state.idle.isEmpty && access.state.openCount > 0 {
                    guard access.wait(until: deadline) else { return nil }
                }
                return access.state.idle.popLast()
            }
            guard let returned else { throw error }
            returned.use.enter()
            return returned
        } catch {
            guarded.withLock { access in
                access.state.openCount -= 1
                access.signal()
            }
            throw error
        }
    }

    func checkin(_ connection: PostgresConnection) {
        let broken = !connection.isConnected
        let keep = !broken && !connection.isInTransaction
        connection.use.leave()
        let dropped = guarded.withLock { access -> [PostgresConnection] in
            defer { access.signal() }
            guard !keep else {
                access.state.idle.append(connection)
                return []
            }
            access.state.openCount -= 1
            // A connection that broke is most often one of many: the server restarted, or an
            // operator ended the service's backends. The idle ones would each fail one more
            // call (a retry would find the next of them): they go too, and are opened again
            // when needed.
            guard broken else { return [] }
            let idle = access.state.idle
            access.state.idle.removeAll()
            access.state.openCount -= idle.count
            return idle
        }
        // Dropped connections are closed (PQfinish) when their last reference goes, here,
        // outside the lock.
        withExtendedLifetime(dropped) {}
    }
}
