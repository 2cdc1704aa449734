import Foundation

/// A pool of read-only connections. In WAL mode a reader works on its own snapshot and never
/// waits for the writer (https://www.sqlite.org/wal.html#concurrency).
///
/// Checkout and checkin are a lock and a free list; connections are opened lazily up to
/// ``DatabaseConfiguration/maximumReaderCount``, after which a reader waits for one to come back.
package final class ReaderPool: @unchecked Sendable {
    private let path: String
    private let configuration: DatabaseConfiguration
    private let condition = NSCondition()
    private var idle: [Database] = []  // guarded by condition
    private var openCount = 0  // guarded by condition

    /// Creates an empty pool; no connection is opened until the first read.
    /// - Parameters:
    ///   - path: the database file, which must exist (the writer creates it).
    ///   - configuration: reader count, cache and mmap sizes, busy timeout.
    package init(path: String, configuration: DatabaseConfiguration) {
        self.path = path
        self.configuration = configuration
    }

    /// Runs `body` with a read-only connection of its own.
    ///
    /// Each statement sees the latest committed data; for several statements that must agree,
    /// wrap them in `inTransaction(.deferred)`.
    /// - Parameter body: reads; it must leave no transaction open (one left open is rolled back).
    package func read<Result>(_ body: (Database) throws -> Result) throws -> Result {
        let database = try checkout()
        defer { checkin(database) }
        return try body(database)
    }

    /// The number of connections opened so far.
    package var connectionCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return openCount
    }

    private func checkout() throws -> Database {
        condition.lock()
        while true {
            if let database = idle.popLast() {
                condition.unlock()
                return database
            }
            if openCount < configuration.maximumReaderCount {
                openCount += 1
                condition.unlock()
                do {
                    return try Database(path: path, mode: .readOnly, configuration: configuration)
                } catch {
                    condition.lock()
                    openCount -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            condition.wait()
        }
    }

    private func checkin(_ database: Database) {
        if database.isInTransaction { database.rollbackIgnoringErrors() }
        condition.lock()
        idle.append(database)
        condition.signal()
        condition.unlock()
    }
}
