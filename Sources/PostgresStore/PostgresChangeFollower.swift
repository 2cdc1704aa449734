import Foundation
internal import Ownership
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
///
/// `@unchecked Sendable`: the start, stop and nudge flags live in a ``Guarded`` cell; the
/// connection and the failure flag belong to the follower's thread, which holds their loan
/// (``ExclusiveUse``) while it runs, so in debug builds a touch from another thread stops.
final class PostgresChangeFollower: @unchecked Sendable {
    /// The `application_name` of the follower's connection.
    static let applicationName = "permission-service follower"

    /// What the follower tells its owner (for the log): a failure, or reading again after one.
    enum Event: Sendable {
        case failed(String)
        case recovered
        /// The log's head was found at `to`, behind the revision `from` this replica showed:
        /// the read model was emptied and goes on from `to`.
        case rewound(from: Int64, to: Int64)
        /// This host's clock was found more than ``PostgresClockOffset/farOff`` off the
        /// database's (the offset, seconds: the database's minus the host's).
        case clockOff(TimeInterval)
        /// And back within ``PostgresClockOffset/backWithin``.
        case clockRight(TimeInterval)

        static func clock(_ change: PostgresClockOffset.Change) -> Event {
            switch change {
            case .off(let offset): .clockOff(offset)
            case .right(let offset): .clockRight(offset)
            }
        }
    }

    /// Entries read per query; a full page is followed by the next at once.
    static let pageSize = 1_000

    let interval: Duration
    /// Its connection's longest wait for an answer (``PostgresConnection/answerTimeout``).
    let answerTimeout: Duration?
    private let conninfo: String
    private let model: PostgresReadModel
    /// Sampled every ``PostgresClockOffset/sampleInterval`` on the follower's connection.
    private let clockOffset: PostgresClockOffset?
    private let report: @Sendable (Event) -> Void
    private struct Flags {
        var nudged = false
        var stopping = false
        var running = false
    }

    private let flags = Guarded(Flags())
    /// The follower thread's own state, checked against its loan in debug builds.
    private var ownConnection: PostgresConnection?
    private var ownFailing = false
    private let thread = ExclusiveUse("the change follower's state")

    /// Touched only by the follower's thread.
    private var connection: PostgresConnection? {
        get {
            thread.check()
            return ownConnection
        }
        set {
            thread.check()
            ownConnection = newValue
        }
    }

    /// Touched only by the follower's thread.
    private var failing: Bool {
        get {
            thread.check()
            return ownFailing
        }
        set {
            thread.check()
            ownFailing = newValue
        }
    }

    init(
        conninfo: String, model: PostgresReadModel, interval: Duration, answerTimeout: Duration? = nil,
        clockOffset: PostgresClockOffset? = nil, report: @escaping @Sendable (Event) -> Void
    ) {
        self.conninfo = conninfo
        self.model = model
        self.clockOffset = clockOffset
        self.interval = interval
        self.answerTimeout = answerTimeout
        self.report = report
    }

    /// Starts the follower's thread.
    func start() {
        flags.withLock { access in
            precondition(!access.state.running, "the change follower is started once")
            access.state.running = true
        }
        let thread = Thread { [self] in run() }
        thread.name = "change-log-follower"
        thread.start()
    }

    /// Asks for a read now (a local commit, or a reader waiting for a revision).
    func nudge() {
        flags.withLock { access in
            access.state.nudged = true
            access.signal()
        }
    }

    /// Stops the thread and waits until it has (at most one query's time).
    func stop() {
        flags.withLock { access in
            access.state.stopping = true
            access.broadcast()
            while access.state.running { access.wait() }
        }
    }

    private func run() {
        thread.enter()
        while true {
            let stopping = flags.withLock { access in
                if access.state.stopping { return true }
                access.state.nudged = false
                return false
            }
            if stopping {
                connection = nil
                thread.leave()
                flags.withLock { access in
                    access.state.running = false
                    access.broadcast()
                }
                return
            }

            follow()

            flags.withLock { access in
                let deadline = ContinuousClock.now + interval
                while !access.state.nudged && !access.state.stopping {
                    if !access.wait(until: deadline) { break }
                }
            }
        }
    }

    /// Reads and applies the log to its end, once.
    private func follow() {
        do {
            let connection: PostgresConnection
            if let open = self.connection {
                connection = open
            } else {
                connection = try PostgresConnection(conninfo, applicationName: Self.applicationName)
                connection.answerTimeout = answerTimeout
            }
            self.connection = connection
            if let rewound = try Self.follow(on: connection, model: model) {
                report(.rewound(from: rewound.from, to: rewound.to))
            }
            if let clockOffset, clockOffset.isDue(), let change = try clockOffset.sampleReportingChange(on: connection) {
                report(.clock(change))
            }
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
    /// transaction), a page at a time, and applies it in one step. The end is the log's last
    /// seq when the read starts: seqs are given in commit order under the chain head's lock, so
    /// that is the last entry of a committed transaction, and reads never see part of one (a
    /// reset of thousands of records, whose entries span several pages). What the pages
    /// changed is collected as it is read, naming at most
    /// ``PostgresReadModel/maximumTrackedChanges`` records (beyond, everything is forgotten).
    /// A head behind the visible revision (the newest entries deleted, or the database restored
    /// under this replica) rewinds the model to it first (``PostgresReadModel/rewind(to:catalogue:)``):
    /// the seqs after it will be given out again, and would otherwise never be read.
    /// - Returns: the revisions of such a rewind, nil when there was none.
    @discardableResult
    static func follow(on connection: PostgresConnection, model: PostgresReadModel) throws -> (from: Int64, to: Int64)? {
        let session = PostgresSession(connection: connection)
        let started = ContinuousClock.now
        // The revision shown before the head is read: the replica's own commits apply the log
        // too, at the same time, and may show a revision past a head read first. One read
        // before the head is at most the head then, unless the log truly went back.
        let shown = model.visibleRevision
        let head = try session.lastAuditSeq()
        var rewound: (from: Int64, to: Int64)?
        if head < shown {
            let loaded = try catalogue(on: connection)
            model.rewind(to: min(head, loaded.asOf), catalogue: loaded.catalogue)
            rewound = (shown, model.visibleRevision)
        }
        var after = model.visibleRevision
        var changes = ReadModelChanges()
        reading: while after < head {
            let entries = try session.changes(after: after, limit: pageSize)
            for entry in entries where entry.seq <= head {
                guard entry.seq == after + 1 else {
                    assertionFailure("the change log skipped from \(after) to \(entry.seq)")
                    break reading
                }
                changes.add(entry, namingAtMost: PostgresReadModel.maximumTrackedChanges)
                after = entry.seq
            }
            if entries.count < pageSize { break }
        }
        try model.apply(changes) { try catalogue(on: connection) }
        model.synced(at: started)
        return rewound
    }

    /// The catalogue, and the last audit seq, read in one snapshot.
    static func catalogue(on connection: PostgresConnection) throws -> (catalogue: PostgresCatalogue, asOf: Int64) {
        try connection.execute(PostgresPermissionStore.beginRead)
        do {
            let session = PostgresSession(connection: connection)
            let catalogue = try session.catalogue()
            let asOf = try session.lastAuditSeq()
            try connection.execute("COMMIT")
            return (catalogue, asOf)
        } catch {
            connection.rollbackIgnoringErrors()
            throw error
        }
    }
}
