import Foundation

/// A small pool of ``PostgresConnection``s, opened lazily up to ``capacity``; a checkout waits
/// (up to ``checkoutTimeout``) for one to come back once all are out.
///
/// ``withConnection(_:)`` returns the connection on every path. A connection that libpq reports
/// as broken (a lost socket, a terminated backend: the failed call leaves it `CONNECTION_BAD`),
/// or that is still inside a transaction, is closed instead of kept; the next checkout opens a
/// new one.
final class PostgresConnectionPool: @unchecked Sendable {
    /// The connection string; never logged (the password).
    private let conninfo: String
    /// At most this many connections are open.
    let capacity: Int
    /// How long a checkout waits for a free connection, in seconds.
    let checkoutTimeout: Double
    /// SQL run once on each new connection (session settings).
    private let setUp: String

    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []  // guarded by condition
    private var openCount = 0  // idle + checked out + being opened, guarded by condition

    /// - Parameters:
    ///   - conninfo: a libpq connection string or URI.
    ///   - capacity: the most connections open at once (at least 1).
    ///   - checkoutTimeout: seconds a checkout waits when every connection is out.
    ///   - setUp: SQL run on each new connection, e.g. `SET lock_timeout = '5s'`.
    init(conninfo: String, capacity: Int, checkoutTimeout: Double, setUp: String) {
        precondition(capacity >= 1, "a pool holds at least one connection")
        self.conninfo = conninfo
        self.capacity = capacity
        self.checkoutTimeout = checkoutTimeout
        self.setUp = setUp
    }

    /// The number of open connections (idle and checked out), for tests.
    var openConnections: Int { condition.withLock { openCount } }

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
        let deadline = Date().addingTimeInterval(checkoutTimeout)
        condition.lock()
        while idle.isEmpty && openCount >= capacity {
            guard condition.wait(until: deadline) else {
                condition.unlock()
                throw PostgresPoolTimeout(capacity: capacity, seconds: checkoutTimeout)
            }
        }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        openCount += 1
        condition.unlock()
        do {
            let connection = try PostgresConnection(conninfo)
            if !setUp.isEmpty { try connection.execute(setUp) }
            return connection
        } catch {
            condition.withLock {
                openCount -= 1
                condition.signal()
            }
            throw error
        }
    }

    func checkin(_ connection: PostgresConnection) {
        let keep = connection.isConnected && !connection.isInTransaction
        condition.withLock {
            if keep { idle.append(connection) } else { openCount -= 1 }
            condition.signal()
        }
        // A dropped connection is closed (PQfinish) when its last reference goes, here.
    }
}
