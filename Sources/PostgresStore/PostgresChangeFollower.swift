import Foundation
import PermissionDomain

/// Follows the change log (the audit log) for a replica's ``PostgresReadModel``: every
/// ``interval``, and at once when nudged, it reads the entries after the visible revision on a
/// connection of its own and applies them. That is how a replica learns of other replicas'
/// commits (and of `permission-server keys revoke` run against the database): polling a table,
/// which works through any proxy and loses nothing while a connection is down, rather than
/// `LISTEN/NOTIFY`, whose notifications are lost then and which serializes commits.
///
/// A failure (the database restarting, a network cut) drops the connection and is reported
/// once; the follower tries again every interval and reports the recovery. While it cannot
/// read, the read model turns stale within ``PostgresReadModel/maximumStaleness`` and reads go
/// to the database.
final class PostgresChangeFollower: @unchecked Sendable {
    /// What the follower tells its owner (for the log): a failure, or reading again after one.
    enum Event: Sendable {
        case failed(String)
        case recovered
    }

    /// Entries read per query; a full page is followed by the next at once.
    static let pageSize = 1_000

    let interval: Duration
    private let conninfo: String
    private let model: PostgresReadModel
    private let report: @Sendable (Event) -> Void
    private let condition = NSCondition()
    private var nudged = false  // guarded by condition
    private var stopping = false  // guarded by condition
    private var running = false  // guarded by condition
    /// Touched only by the follower's thread.
    private var connection: PostgresConnection?
    private var failing = false

    init(conninfo: String, model: PostgresReadModel, interval: Duration, report: @escaping @Sendable (Event) -> Void) {
        self.conninfo = conninfo
        self.model = model
        self.interval = interval
        self.report = report
    }

    /// Starts the follower's thread.
    func start() {
        condition.withLock {
            precondition(!running, "the change follower is started once")
            running = true
        }
        let thread = Thread { [self] in run() }
        thread.name = "change-log-follower"
        thread.start()
    }

    /// Asks for a read now (a local commit, or a reader waiting for a revision).
    func nudge() {
        condition.withLock {
            nudged = true
            condition.signal()
        }
    }

    /// Stops the thread and waits until it has (at most one query's time).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            if stopping {
                running = false
                connection = nil
                condition.broadcast()
                condition.unlock()
                return
            }
            nudged = false
            condition.unlock()

            follow()

            condition.lock()
            let deadline = Date().addingTimeInterval(interval.seconds)
            while !nudged && !stopping {
                if !condition.wait(until: deadline) { break }
            }
            condition.unlock()
        }
    }

    /// Reads and applies the log to its end, once.
    private func follow() {
        do {
            let connection = try self.connection ?? PostgresConnection(conninfo, applicationName: "permission-service follower")
            self.connection = connection
            try Self.follow(on: connection, model: model)
            if failing {
                failing = false
                report(.recovered)
            }
        } catch {
            connection = nil
            if !failing {
                failing = true
                report(.failed("\(error)"))
            }
        }
    }

    /// Reads the log after `model`'s visible revision to its end on `connection` (outside a
    /// transaction), a page at a time, and applies it.
    static func follow(on connection: PostgresConnection, model: PostgresReadModel) throws {
        let session = PostgresSession(connection: connection)
        while true {
            let started = ContinuousClock.now
            let after = model.visibleRevision
            let entries = try session.changes(after: after, limit: pageSize)
            try model.apply(entries, after: after) { try catalogue(on: connection) }
            if entries.count < pageSize {
                model.synced(at: started)
                return
            }
        }
    }

    /// The catalogue, read in one snapshot.
    static func catalogue(on connection: PostgresConnection) throws -> PostgresCatalogue {
        try connection.execute(PostgresPermissionStore.beginRead)
        do {
            let catalogue = try PostgresSession(connection: connection).catalogue()
            try connection.execute("COMMIT")
            return catalogue
        } catch {
            connection.rollbackIgnoringErrors()
            throw error
        }
    }
}
