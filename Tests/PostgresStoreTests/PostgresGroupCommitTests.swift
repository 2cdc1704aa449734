import Foundation
import PermissionDomain
import PostgresStore
import PostgresTestServer
import StoreTestSupport
import Synchronization
import TestThreads
import Testing

/// Live: group commit on PostgreSQL (``PostgresWriter``) on a real server, each test in a
/// database of its own. Batches are formed deterministically by holding the chain head's row
/// lock from another connection while writes queue up behind the writer (every batch locks it
/// first), then letting go well within the lock timeout.
@Suite struct PostgresGroupCommitTests {
    private static let start = Date(millisecondsSince1970: 1_795_000_000_000)

    /// One write of the kind the domain makes: a row and its audit entry.
    private struct Write: Sendable {
        let app: App
        let entry: AuditEntry

        init(_ name: String) throws {
            app = try App(
                id: try AppID("com.example.\(name)"), name: name, purposeStrings: [:], updatedAt: PostgresGroupCommitTests.start)
            entry = AuditEntry(
                at: app.updatedAt, actor: Actor(keyId: nil, role: "admin"), action: AuditAction("app.saved"), app: app.id,
                detail: ["name": name])
        }

        /// Saves the app and appends the entry; returns the entry's seq.
        func apply(_ writer: any PermissionWriter) throws -> Int64 {
            try writer.save(app)
            let before = try writer.lastAuditSeq()
            let seq = try writer.append(entry)
            #expect(seq == before + 1)  // the bodies before it in its batch are visible, nothing between
            return seq
        }
    }

    /// A value shared by the writer threads.
    private final class Shared<Value: Sendable>: Sendable {
        private let mutex: Mutex<Value>
        init(_ value: Value) { mutex = Mutex(value) }
        func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
    }

    /// Another connection holding the chain head's row lock, as a batch of another replica would.
    private final class HeadHolder {
        let connection: PostgresConnection
        init(_ database: String) throws {
            connection = try PostgresConnection(database)
            try connection.execute("BEGIN; SELECT * FROM audit_head FOR UPDATE")
        }
        /// Sessions of `database` waiting for a lock (the writers' batches behind this one).
        func waitingForLocks() throws -> Int64 {
            try connection.query(Self.waitingForLocks)[0].int64(at: 0)
        }
        /// Named once (a statement is, `PreparedStatement.maximum`): polled many times.
        private static let waitingForLocks = PreparedStatement(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
        func release() throws { try connection.rollback() }
    }

    /// Starts `body` on a thread of its own; `group` is left when it ends.
    private func thread(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread {
            defer { group.leave() }
            body()
        }.start()
    }

    private func waitUntil(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if try condition() { return true }
            usleep(2_000)
        }
        return false
    }

    /// Checks that the log is exactly seq 1...count, linked, and verifies.
    private func expectLinearChain(_ store: PostgresPermissionStore, count: Int64) throws {
        let entries = try store.read { try $0.audit(query: AuditQuery(after: 0, limit: 100_000)) }
        #expect(entries.map(\.seq) == Array(1...count))
        for (earlier, later) in zip(entries, entries.dropFirst()) { #expect(later.prevHash == earlier.hash) }
        let report = try store.verifyAuditChain(batchSize: 100, progress: nil)
        #expect(report.isIntact)
        #expect(report.intactLength == count)
    }

    @Test(.timeLimit(.minutes(2)), .blocksItsThread) func sixtyFourConcurrentWritersShareCommitsAndEveryAcknowledgedWriteIsThere()
        throws
    {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        let threads = 64
        let perThread = 8
        let acknowledged = Shared<[Int64: Write]>([:])
        let failures = Failures()
        let holder = try HeadHolder(database)
        let group = DispatchGroup()
        for index in 0..<threads {
            thread(group) {
                do {
                    for round in 0..<perThread {
                        let write = try Write("t\(index).w\(round)")
                        let seq = try store.write { try write.apply($0) }
                        acknowledged.withLock { $0[seq] = write }
                    }
                } catch {
                    failures.add(error)
                }
            }
        }
        // Let the first writes pile up behind the held lock, then let go (within the lock
        // timeout): they are split over at most two batches.
        #expect(waitUntil { store.writer.waitingCount == threads })
        try holder.release()
        #expect(group.wait(timeout: .now() + 90) == .success)
        #expect(failures.all.isEmpty, "\(failures.all)")

        let total = threads * perThread
        let writes = acknowledged.withLock { $0 }
        #expect(writes.count == total)
        try store.read { reader throws in
            for (seq, write) in writes {
                #expect(try reader.app(write.app.id) == write.app)
                let entry = try reader.audit(query: AuditQuery(after: seq - 1, limit: 1)).first
                #expect(entry?.seq == seq)
                #expect(entry?.app == write.app.id)
                #expect(entry?.detail == write.entry.detail)
            }
        }
        try expectLinearChain(store, count: Int64(total))
        let statistics = store.writeStatistics
        #expect(statistics.committedWrites == total)
        #expect(statistics.failedWrites == 0)
        #expect(statistics.commits < statistics.committedWrites)
        #expect(statistics.largestBatch >= threads / 2)
        #expect(store.openConnections <= PostgresPermissionStore.defaultPoolSize)
    }

    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aBodyThatThrowsLeavesNoTraceWhileItsNeighboursInTheBatchCommit() throws
    {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        let writes = try ["first", "before", "failing", "after"].map(Write.init)
        let results = Shared<[String: Result<Int64, PermissionError>]>([:])
        func start(_ group: DispatchGroup, _ write: Write, failing: Bool) {
            thread(group) {
                do {
                    let seq = try store.write { writer in
                        let seq = try write.apply(writer)
                        if failing { throw PermissionError.conflict(why: "refused after writing") }
                        return seq
                    }
                    results.withLock { $0[write.app.name] = .success(seq) }
                } catch let error as PermissionError {
                    results.withLock { $0[write.app.name] = .failure(error) }
                } catch {
                    Issue.record("unexpected \(error)")
                }
            }
        }
        let holder = try HeadHolder(database)
        let group = DispatchGroup()
        // "first" is taken into a batch of its own, which waits for the lock; the other three
        // queue behind it in this order and form the next batch.
        start(group, writes[0], failing: false)
        #expect(try waitUntil { try holder.waitingForLocks() == 1 })
        for (index, write) in writes.dropFirst().enumerated() {
            start(group, write, failing: write.app.name == "failing")
            #expect(waitUntil { store.writer.pendingCount == index + 1 })
        }
        try holder.release()
        #expect(group.wait(timeout: .now() + 30) == .success)

        let outcome = results.withLock { $0 }
        #expect(outcome["first"] == .success(1))
        #expect(outcome["before"] == .success(2))
        #expect(outcome["failing"] == .failure(.conflict(why: "refused after writing")))
        #expect(outcome["after"] == .success(3))  // the failing body's entry and head move are gone
        try store.read { reader throws in
            #expect(try reader.app(writes[2].app.id) == nil)
            for index in [0, 1, 3] { #expect(try reader.app(writes[index].app.id) == writes[index].app) }
            #expect(try reader.audit(query: AuditQuery(after: 0, limit: 10)).map(\.app) == [0, 1, 3].map { writes[$0].app.id })
        }
        try expectLinearChain(store, count: 3)
        let statistics = store.writeStatistics
        #expect(statistics.commits == 2)
        #expect(statistics.committedWrites == 3)
        #expect(statistics.failedWrites == 1)
        #expect(statistics.largestBatch == 2)
    }

    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aBatchWhoseConnectionIsLostBeforeTheCommitRunsAgainOnANewOneOnce()
        throws
    {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        let locked = try Write("locked")
        #expect(try store.write { try locked.apply($0) } == 1)
        let writes = try [Write("first"), Write("a"), locked, Write("c")]
        let seqs = Shared<[String: Int64]>([:])
        let failures = Failures()
        let holder = try HeadHolder(database)
        let group = DispatchGroup()
        func start(_ write: Write) {
            thread(group) {
                do {
                    let seq = try store.write { try write.apply($0) }
                    seqs.withLock { $0[write.app.name] = seq }
                } catch {
                    failures.add(error)
                }
            }
        }
        // "first" waits for the head alone; "a", "locked", "c" queue behind it as one batch.
        start(writes[0])
        #expect(try waitUntil { try holder.waitingForLocks() == 1 })
        for (index, write) in writes.dropFirst().enumerated() {
            start(write)
            #expect(waitUntil { store.writer.pendingCount == index + 1 })
        }
        // The batch's second body will wait for this row lock, after its first body ran.
        let rowHolder = try PostgresConnection(database)
        try rowHolder.execute("BEGIN; SELECT * FROM apps WHERE id = 'com.example.locked' FOR UPDATE")
        try holder.release()
        #expect(
            try waitUntil {
                let first = seqs.withLock { $0["first"] }
                return try first == 2 && holder.waitingForLocks() == 1
            })
        // The writer's connection dies in the middle of the batch, before its COMMIT.
        let terminated = try holder.connection.query(
            PreparedStatement(
                """
                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'
                """))[0].int64(at: 0)
        #expect(terminated == 1)
        try rowHolder.rollback()
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(failures.all.isEmpty, "\(failures.all)")

        // The whole batch ran again on a new connection, each body once in the log.
        #expect(seqs.withLock { $0 } == ["first": 2, "a": 3, "locked": 4, "c": 5])
        try expectLinearChain(store, count: 5)
        let statistics = store.writeStatistics
        #expect(statistics.retriedBatches == 1)
        #expect(statistics.commits == 3)
        #expect(statistics.committedWrites == 5)
        #expect(statistics.largestBatch == 3)
        #expect(statistics.failedWrites == 0)
    }

    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func aBatchThatLosesADeadlockRunsAgainWhole() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let name = database.split(separator: " ").first { $0.hasPrefix("dbname=") }!.dropFirst("dbname=".count)
        // The writer's sessions look for deadlocks after 3 s, the other party's only after 60 s:
        // the writer's transaction is the one the server aborts (40P01).
        try PostgresConnection(database).execute("ALTER DATABASE \(name) SET deadlock_timeout = '3s'")
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        let (x, y) = (try Write("x"), try Write("y"))
        _ = try store.write { try x.apply($0) }
        _ = try store.write { try y.apply($0) }
        let seqs = Shared<[String: Int64]>([:])
        let failures = Failures()
        let holder = try HeadHolder(database)
        let group = DispatchGroup()
        func start(_ write: Write) {
            thread(group) {
                do {
                    let seq = try store.write { try write.apply($0) }
                    seqs.withLock { $0[write.app.name] = seq }
                } catch {
                    failures.add(error)
                }
            }
        }
        start(try Write("first"))
        #expect(try waitUntil { try holder.waitingForLocks() == 1 })
        start(x)
        #expect(waitUntil { store.writer.pendingCount == 1 })
        start(y)
        #expect(waitUntil { store.writer.pendingCount == 2 })
        let other = try PostgresConnection(database)
        try other.execute("SET deadlock_timeout = '60s'")
        try other.execute("BEGIN; SELECT * FROM apps WHERE id = 'com.example.y' FOR UPDATE")
        try holder.release()
        // The batch saved x, then waits for y; taking x now closes the cycle.
        #expect(
            try waitUntil {
                let first = seqs.withLock { $0["first"] }
                return try first == 3 && holder.waitingForLocks() == 1
            })
        try other.execute("UPDATE apps SET name = name WHERE id = 'com.example.x'")  // returns once the batch is aborted
        try other.rollback()
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(failures.all.isEmpty, "\(failures.all)")

        #expect(seqs.withLock { $0 } == ["first": 3, "x": 4, "y": 5])
        try expectLinearChain(store, count: 5)
        let statistics = store.writeStatistics
        // At least the one rerun the deadlock forced (a loaded machine can make the rerun lose a
        // lock race once more before the other session's rollback lands); what must hold is
        // above: every write once, in order, one chain.
        #expect(statistics.retriedBatches >= 1)
        #expect(statistics.commits == 4)
        #expect(statistics.largestBatch == 2)
        #expect(statistics.failedWrites == 0)
    }

    @Test(.timeLimit(.minutes(2)), .blocksItsThread) func twoReplicasGroupCommittingOnOneDatabaseKeepOneLinearChain() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let replicas = [
            try PostgresPermissionStore.open(connectionString: database, keyring: .forTests),
            try PostgresPermissionStore.open(connectionString: database, keyring: .forTests),
        ]
        let threads = 32
        let perThread = 10
        let failures = Failures()
        let holder = try HeadHolder(database)
        let group = DispatchGroup()
        for index in 0..<threads {
            thread(group) {
                let store = replicas[index % 2]
                do {
                    for round in 0..<perThread {
                        let write = try Write("r\(index % 2).t\(index).w\(round)")
                        _ = try store.write { try write.apply($0) }
                    }
                } catch {
                    failures.add(error)
                }
            }
        }
        #expect(waitUntil { replicas.allSatisfy { $0.writer.waitingCount == threads / 2 } })
        try holder.release()
        #expect(group.wait(timeout: .now() + 90) == .success)
        #expect(failures.all.isEmpty, "\(failures.all)")

        let total = threads * perThread
        for store in replicas { try expectLinearChain(store, count: Int64(total)) }
        let statistics = replicas.map(\.writeStatistics)
        #expect(statistics.map(\.committedWrites).reduce(0, +) == total)
        // Each replica's first writes were all waiting: split over at most two batches.
        #expect(statistics.allSatisfy { $0.largestBatch >= threads / 4 && $0.commits < $0.committedWrites })
        // Each entry was written by the replica its thread used, and both are in the one chain.
        let entries = try replicas[0].read { try $0.audit(query: AuditQuery(after: 0, limit: 100_000)) }
        #expect(Set(entries.compactMap { $0.detail["name"]?.prefix(2) }) == ["r0", "r1"])
    }

    @Test(.timeLimit(.minutes(2)), .blocksItsThread) func writesToALostDatabaseAreUnavailableWithinABoundAndSucceedOnceItIsBack()
        throws
    {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        let admin = try PostgresConnection(try PostgresServer.shared.get().connectionString())
        let name = database.split(separator: " ").first { $0.hasPrefix("dbname=") }!.dropFirst("dbname=".count)
        let threads = 16
        let acknowledged = Shared<[Int64: Write]>([:])
        let sawUnavailable = Shared<Int>(0)
        let back = Shared<Bool>(false)
        let slowest = Shared<TimeInterval>(0)
        let failures = Failures()
        let group = DispatchGroup()
        for index in 0..<threads {
            thread(group) {
                do {
                    var round = 0
                    // Write until the database is gone (bounded by the test's time limit).
                    while true {
                        let write = try Write("t\(index).w\(round)")
                        round += 1
                        let started = Date()
                        do {
                            let seq = try store.write { try write.apply($0) }
                            acknowledged.withLock { $0[seq] = write }
                        } catch PermissionError.unavailable {
                            slowest.withLock { $0 = max($0, Date().timeIntervalSince(started)) }
                            break
                        }
                    }
                    sawUnavailable.withLock { $0 += 1 }
                    while !back.withLock({ $0 }) { usleep(2_000) }
                    let write = try Write("t\(index).again")
                    let seq = try store.write { try write.apply($0) }
                    acknowledged.withLock { $0[seq] = write }
                } catch {
                    failures.add(error)
                }
            }
        }
        #expect(waitUntil { acknowledged.withLock { $0.count } >= 100 })
        // The database goes away under the writers: no new connections, the open ones ended.
        try admin.execute("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS false")
        try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
        #expect(waitUntil { sawUnavailable.withLock { $0 } == threads })
        // Checkout, connect and lock timeouts bound each write (5 s each); a refused connection fails at once.
        #expect(slowest.withLock { $0 } < 20)
        try admin.execute("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS true")
        back.withLock { $0 = true }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(failures.all.isEmpty, "\(failures.all)")

        // Every acknowledged write is there; a write answered unavailable during the commit may
        // be there too (its outcome was unknown), and the chain is linear either way.
        let writes = acknowledged.withLock { $0 }
        let count = try store.read { try $0.lastAuditSeq() }
        try store.read { reader throws in
            for (seq, write) in writes {
                #expect(try reader.app(write.app.id) == write.app)
                #expect(try reader.audit(query: AuditQuery(after: seq - 1, limit: 1)).first?.app == write.app.id)
            }
        }
        #expect(count >= Int64(writes.count))
        try expectLinearChain(store, count: count)
        #expect(store.writeStatistics.failedWrites >= threads)
    }

    @Test(.timeLimit(.minutes(2)), .blocksItsThread) func aStoppedServerAnswersUnavailableInsteadOfHangingTheQueuedWriters()
        throws
    {
        let server = try PostgresServer.start()
        defer { server.stop() }
        let store = try PostgresPermissionStore.open(connectionString: server.connectionString(), keyring: .forTests)
        _ = try store.write { try Write("before").apply($0) }
        server.stop()
        let threads = 16
        let outcomes = Shared<[String]>([])
        let slowest = Shared<TimeInterval>(0)
        let group = DispatchGroup()
        for index in 0..<threads {
            thread(group) {
                let started = Date()
                do {
                    let write = try Write("after.t\(index)")
                    _ = try store.write { try write.apply($0) }
                    outcomes.withLock { $0.append("written") }
                } catch PermissionError.unavailable {
                    outcomes.withLock { $0.append("unavailable") }
                } catch {
                    outcomes.withLock { $0.append("\(error)") }
                }
                slowest.withLock { $0 = max($0, Date().timeIntervalSince(started)) }
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(outcomes.withLock { $0 } == Array(repeating: "unavailable", count: threads))
        #expect(slowest.withLock { $0 } < 20)
    }
}
