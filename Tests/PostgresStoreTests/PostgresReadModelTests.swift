import AuditKeys
import Foundation
import PermissionDomain
import PostgresTestServer
import StoreTestSupport
import Synchronization
import TestThreads
import Testing

@testable import PostgresStore

/// Live: a serving store's read model (``PostgresReadModel``) on a real PostgreSQL. Another
/// replica's commit is forgotten once its entry is applied; a revision is waited for; memory is
/// trusted only while the log was read within a second; a write that leaves a change unaudited
/// is refused, since replicas would never hear of it.
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct PostgresReadModelTests {
    private static let now = Date(millisecondsSince1970: 1_795_000_000_000)
    private static let key = AuthorizationKey(
        user: UserID(trusted: "u1"), app: AppID(trusted: "com.example.maps"), service: ServiceID(trusted: "camera"))

    private static func serving(_ database: String, interval: Duration = .milliseconds(100)) throws -> PostgresPermissionStore {
        try PostgresPermissionStore.open(
            connectionString: database, keyring: .forTests, poolSize: 2,
            readModel: .init(cacheEntries: 1_000, followInterval: interval))
    }

    /// The failures a replica's follower reports (a rewind, a log it cannot read).
    final class Reports: Sendable {
        let messages = Mutex<[String]>([])
    }

    /// A serving store whose follower's failure reports are collected.
    private static func reporting(_ database: String, interval: Duration) throws -> (PostgresPermissionStore, Reports) {
        let reports = Reports()
        let replica = try PostgresPermissionStore.open(
            connectionString: database, keyring: .forTests, poolSize: 2,
            readModel: .init(cacheEntries: 1_000, followInterval: interval) { message, failed in
                if failed { reports.messages.withLock { $0.append(message) } }
            })
        return (replica, reports)
    }

    /// Sets the camera record of u1 to `status`, audited as the service does; returns the seq.
    @discardableResult
    private static func set(_ store: PostgresPermissionStore, _ status: AuthorizationStatus, version: Int64) throws -> Int64 {
        try store.write { writer in
            let stored = StoredAuthorization(
                user: key.user, app: key.app, service: key.service, status: status,
                level: status == .authorized ? Level(trusted: "full") : nil, provisional: false, once: false,
                expiresAt: nil, reason: .userConsent, purpose: nil, declinedLevels: [], updatedAt: now, version: version)
            try writer.save(stored)
            return try writer.append(
                AuditEntry(
                    at: now, actor: .system, action: .authorizationSet, user: key.user, app: key.app, service: key.service))
        }
    }

    private static func status(_ store: PostgresPermissionStore) throws -> AuthorizationStatus? {
        try store.read {
            try $0.authorizationAndSettings(user: key.user, app: key.app, service: key.service, withSettings: false)
        }.stored?.status
    }

    @Test func anotherReplicasCommitIsForgottenOnceApplied() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        // A slow follower, so that what this replica shows is decided by the test.
        let replica = try Self.serving(database, interval: .seconds(60))
        let other = try Self.serving(database)
        try Self.set(other, .denied, version: 1)
        #expect(try replica.awaitRevision(1, timeout: .seconds(5)))
        #expect(try Self.status(replica) == .denied)  // read from the database, now cached
        #expect(replica.answersFromMemory(user: Self.key.user, app: Self.key.app, service: Self.key.service))

        let revision = try Self.set(other, .authorized, version: 2)
        #expect(try replica.visibleRevision() == 1)  // not yet told (its follower sleeps)
        #expect(try replica.awaitRevision(revision, timeout: .seconds(5)))  // nudges the follower
        #expect(!replica.answersFromMemory(user: Self.key.user, app: Self.key.app, service: Self.key.service))
        #expect(try Self.status(replica) == .authorized)
        // Its own write is visible when it returns, with everything before it.
        let own = try Self.set(replica, .denied, version: 3)
        #expect(try replica.visibleRevision() == own && replica.acknowledgedRevision() == own)
        #expect(try Self.status(replica) == .denied)
        // The audit log shows no entry before its changes left memory.
        #expect(try replica.read { try $0.audit(query: AuditQuery(after: 0, limit: 10)) }.map(\.seq) == [1, 2, 3])
    }

    /// An erasure's key leaves the memory of every replica: the one that read the user's entries
    /// (and kept their key unwrapped) forgets it when it applies another replica's erasure.
    /// The change log read after an erasure committed says which entries named the erased user:
    /// a follower that took its head before the erasure, and so does not read the erasure's
    /// entry this time, still forgets what those entries changed.
    @Test func theChangeLogSaysWhichEntriesNamedAnErasedUser() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try Self.serving(database)
        defer { store.close() }
        let granted = try Self.set(store, .authorized, version: 1)
        let other = try store.write {
            try $0.append(AuditEntry(at: Self.now, actor: .system, action: .appPut, app: Self.key.app))
        }
        _ = try store.write { writer in
            _ = try writer.eraseUser(Self.key.user)
            return try writer.append(AuditEntry(at: Self.now, actor: .system, action: .userErased))
        }
        let connection = try PostgresConnection(database)
        let entries = try PostgresSession(connection: connection).changes(after: granted - 1, limit: 2)
        #expect(entries.map(\.seq) == [granted, other])
        #expect(entries.map(\.userErased) == [true, false])
        #expect(entries.first?.user == nil)
        #expect(ReadModelChanges(entries).everything)
    }

    @Test func anErasedUsersKeyLeavesEveryReplicasMemory() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let serverKey = AuditKeyring.newServerKey()
        let (mine, theirs) = (try AuditKeyring(serverKey: serverKey), try AuditKeyring(serverKey: serverKey))
        let replica = try PostgresPermissionStore.open(
            connectionString: database, keyring: mine, poolSize: 2, readModel: .init(cacheEntries: 100))
        defer { replica.close() }
        let other = try PostgresPermissionStore.open(
            connectionString: database, keyring: theirs, poolSize: 2, readModel: .init(cacheEntries: 100))
        defer { other.close() }
        let revision = try Self.set(other, .denied, version: 1)
        #expect(try replica.awaitRevision(revision, timeout: .seconds(5)))
        let read = try replica.read { try $0.audit(query: AuditQuery(user: Self.key.user, after: 0, limit: 10)) }
        #expect(read.map(\.user) == [Self.key.user], "read, and unsealed, with the user's key")
        let wrapped = try PostgresConnection(database).query(
            PreparedStatement("SELECT wrapped_key FROM audit_subjects WHERE user_id = $1"), [.text("u1")])
        let wrappedKey = try #require(wrapped.count == 1 ? wrapped[0].optionalString(at: 0) : nil)
        #expect(mine.remembers(wrappedKey: wrappedKey))

        // As PermissionService erases: the deletions and their entry in one write.
        let seq = try other.write { writer in
            let erased = try writer.eraseUser(Self.key.user)
            return try writer.append(
                AuditEntry(at: Self.now, actor: .system, action: .userErased, detail: ["pseudonym": erased.pseudonym ?? ""]))
        }
        #expect(!theirs.remembers(wrappedKey: wrappedKey), "the replica that erased forgets it")
        #expect(try replica.awaitRevision(seq, timeout: .seconds(5)))
        #expect(!mine.remembers(wrappedKey: wrappedKey), "the other replica forgets it once it applied the erasure")
    }

    /// A key change is told to the observers (which forget the keys they verified) before the
    /// revision that made it shows: nothing that reads up to that revision, or waited for it,
    /// can still find the key verified in memory.
    @Test func keyChangesAreToldBeforeTheirRevisionShows() {
        let model = PostgresReadModel(cacheCapacity: 10)
        model.start(at: 4, catalogue: PostgresCatalogue(services: [:], policyServices: []))
        let told = Mutex<[(visible: Int64, keysChanged: Bool)]>([])
        model.observe { changes in told.withLock { $0.append((model.visibleRevision, changes.keysChanged)) } }
        model.apply([ChangeLogEntry(seq: 5, action: .keyRevoked, user: nil, app: nil, service: nil)], after: 4) {
            (PostgresCatalogue(services: [:], policyServices: []), 5)
        }
        let seen = told.withLock { $0 }
        #expect(seen.first.map { $0.visible == 4 && $0.keysChanged } == true, "\(seen)")
        #expect(seen.last.map { $0.visible == 5 } == true, "\(seen)")
    }

    /// A write acknowledged before its entries could be applied (its connection failed after
    /// the commit, and the follower did not catch up in time) leaves memory untrusted until they
    /// are: this replica's reads go to the database and show the write. A rewind ends the wait.
    @Test func aWriteAcknowledgedUnappliedIsReadFromTheDatabase() {
        let model = PostgresReadModel(cacheCapacity: 10)
        model.start(at: 4, catalogue: PostgresCatalogue(services: [:], policyServices: []))
        model.synced(at: ContinuousClock.now)
        #expect(model.isFresh)
        model.distrust(below: 6)
        #expect(!model.isFresh && model.trusted.fresh == false)
        let set = { (seq: Int64) in
            ChangeLogEntry(
                seq: seq, action: .authorizationSet, user: Self.key.user, app: Self.key.app, service: Self.key.service)
        }
        model.apply([set(5)], after: 4) { (PostgresCatalogue(services: [:], policyServices: []), 5) }
        #expect(!model.isFresh, "5 is not the write")
        model.apply([set(6)], after: 5) { (PostgresCatalogue(services: [:], policyServices: []), 6) }
        #expect(model.isFresh)
        model.distrust(below: 9)
        model.rewind(to: 3, catalogue: nil)
        #expect(model.isFresh, "the log went back: what was waited for is gone")
    }

    /// The writer and the follower apply entries at once, each loading the catalogue when they
    /// changed it. The follower read policy 1's entry and loaded before policy 2 committed; the
    /// writer applied both and stored the newer catalogue first. The follower's older load must
    /// not replace it: policy 2's service would be read as having no policy.
    @Test func anOlderCatalogueNeverReplacesANewerOne() {
        let model = PostgresReadModel(cacheCapacity: 10)
        model.start(at: 0, catalogue: PostgresCatalogue(services: [:], policyServices: []))
        model.synced(at: ContinuousClock.now)
        let camera = ServiceID(trusted: "camera")
        let microphone = ServiceID(trusted: "microphone")
        func policy(_ seq: Int64, _ service: ServiceID) -> ChangeLogEntry {
            ChangeLogEntry(seq: seq, action: .policyPut, user: nil, app: nil, service: service)
        }
        let newer = PostgresCatalogue(services: [:], policyServices: [camera, microphone])
        let older = PostgresCatalogue(services: [:], policyServices: [camera])
        model.apply([policy(1, camera), policy(2, microphone)], after: 0) { (newer, 2) }
        model.apply([policy(1, camera)], after: 0) { (older, 1) }
        #expect(model.trusted.catalogue?.policyServices == [camera, microphone])
        // A load as new or newer is taken.
        let newest = PostgresCatalogue(services: [:], policyServices: [microphone])
        model.apply([policy(3, camera)], after: 2) { (newest, 3) }
        #expect(model.trusted.catalogue?.policyServices == [microphone])
        // A failed load leaves it unknown (every service queried), and an older load that
        // finishes afterwards does not bring back what the failed one should have replaced.
        struct Unreachable: Error {}
        #expect(throws: Unreachable.self) {
            try model.apply([policy(4, camera)], after: 3) { throw Unreachable() }
        }
        #expect(model.trusted.catalogue == nil)
        model.apply([policy(3, camera)], after: 2) { (older, 3) }
        #expect(model.trusted.catalogue == nil)
        model.apply([policy(4, camera)], after: 3) { (newer, 4) }
        #expect(model.trusted.catalogue?.policyServices == [camera, microphone])
    }

    /// A transaction of more entries than a page of the log (a reset of many records) becomes
    /// visible on another replica all at once: its follower never shows a revision inside it.
    @Test func aTransactionLongerThanAPageIsShownWhole() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let command = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
        try Self.set(command, .denied, version: 1)  // seq 1
        let count = PostgresChangeFollower.pageSize + 500
        let last = try command.write { writer -> Int64 in
            var seq: Int64 = 0
            for index in 0..<count {
                seq = try writer.append(
                    AuditEntry(
                        at: Self.now, actor: .system, action: .authorizationSet, user: UserID(trusted: "u\(index)"),
                        app: Self.key.app, service: Self.key.service))
            }
            return seq
        }
        #expect(last == Int64(count) + 1)

        let model = PostgresReadModel(cacheCapacity: 10)
        model.start(at: 0, catalogue: PostgresCatalogue(services: [:], policyServices: []))
        final class Shown: Sendable {
            let revisions = Mutex<[Int64]>([])
        }
        let shown = Shown()
        model.observe { changes in shown.revisions.withLock { $0.append(changes.revision) } }
        try PostgresChangeFollower.follow(on: try PostgresConnection(database), model: model)
        #expect(shown.revisions.withLock { $0 } == [last], "one step to the end of the transaction, never a page of it")
        #expect(model.visibleRevision == last)
    }

    /// The newest entries deleted and the head moved back under a serving replica (a restore
    /// of the database, or an edit around the triggers): its follower finds the head behind
    /// what it showed, empties the read model, says so, and reads the seqs given out again, so
    /// that a change under a reused seq is not hidden by the record cached before.
    /// The replica's own commits apply the log as its follower does, at the same time: one of
    /// them reading the head just before the other moves the visible revision past it is no
    /// rewind. The revision the replica shows never goes back, and nothing is reported.
    @Test func followsRacingTheReplicasOwnCommitsNeverRewind() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let (replica, reports) = try Self.reporting(database, interval: .milliseconds(1))
        let other = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
        let deadline = ContinuousClock.now + .milliseconds(1_500)
        var wentBack = false
        let writers = DispatchGroup()
        for store in [replica, other] {
            DispatchQueue.global().async(group: writers) {
                while ContinuousClock.now < deadline {
                    _ = try? store.write { writer in
                        try writer.append(AuditEntry(at: Self.now, actor: .system, action: .appPut, detail: ["n": "1"]))
                    }
                }
            }
        }
        var shown: Int64 = 0
        while ContinuousClock.now < deadline {
            let now = try replica.visibleRevision()
            if now < shown { wentBack = true }
            shown = max(shown, now)
        }
        writers.wait()
        #expect(reports.messages.withLock { $0 }.isEmpty, "\(reports.messages.withLock { $0 })")
        #expect(!wentBack, "the visible revision went back")
        #expect(shown > 10, "writes were made: \(shown)")
    }

    @Test func aLogRewoundUnderTheReplicaIsReadAgainFromItsHead() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let (replica, reports) = try Self.reporting(database, interval: .milliseconds(100))
        let other = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
        try Self.set(other, .denied, version: 1)  // seq 1
        try Self.set(other, .authorized, version: 2)  // seq 2
        #expect(try replica.awaitRevision(2, timeout: .seconds(5)))
        #expect(try Self.status(replica) == .authorized)
        #expect(replica.answersFromMemory(user: Self.key.user, app: Self.key.app, service: Self.key.service))
        let told = Mutex<[VisibleChanges]>([])
        replica.observeChanges { changes in told.withLock { $0.append(changes) } }

        // What a restore of the state after seq 1 leaves: the record and the log as they were.
        let editor = try PostgresConnection(database)
        try editor.execute(
            """
            ALTER TABLE audit DISABLE TRIGGER audit_never_updated;
            ALTER TABLE authorizations DISABLE TRIGGER authorizations_version_grows;
            DELETE FROM audit WHERE seq = 2;
            UPDATE audit_head SET seq = 1, hash = (SELECT hash FROM audit WHERE seq = 1) WHERE id = 1;
            UPDATE authorizations SET status = 'denied', level = NULL, version = 1;
            ALTER TABLE audit ENABLE TRIGGER audit_never_updated;
            ALTER TABLE authorizations ENABLE TRIGGER authorizations_version_grows;
            """)
        let deadline = ContinuousClock.now + .seconds(5)
        while reports.messages.withLock({ $0.isEmpty }), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        let messages = reports.messages.withLock { $0 }
        #expect(messages.count == 1 && messages.first?.contains("last entry is 1, behind the 2") == true, "\(messages)")
        #expect(try replica.visibleRevision() == 1)
        #expect(try Self.status(replica) == .denied, "read again, not the record cached before")
        // Its observers (the event streams) are told the log went back.
        #expect(told.withLock { $0 }.contains { $0.logWentBack && $0.revision == 1 }, "\(told.withLock { $0 })")

        // A change under the seq given out again reaches the replica.
        let reused = try Self.set(other, .notDetermined, version: 2)
        #expect(reused == 2)
        #expect(try replica.awaitRevision(2, timeout: .seconds(5)))
        #expect(try Self.status(replica) == .notDetermined)
    }

    @Test func aRevisionThatDoesNotComeTimesOut() throws {
        let store = try Self.serving(try PostgresServer.shared.get().freshDatabase())
        let started = ContinuousClock.now
        #expect(try !store.awaitRevision(5, timeout: .milliseconds(300)))
        #expect(ContinuousClock.now - started >= .milliseconds(300))
    }

    @Test func memoryIsTrustedOnlyWhileTheLogWasReadWithinASecond() throws {
        let store = try Self.serving(try PostgresServer.shared.get().freshDatabase(), interval: .seconds(60))
        let model = try #require(store.readModel)
        #expect(model.isFresh)  // read at open
        model.synced(at: ContinuousClock.now)
        #expect(model.isFresh)
        // Backdate what the follower last achieved: nothing newer than 2 s ago.
        let stale = PostgresReadModel(cacheCapacity: 10)
        stale.start(at: 0, catalogue: nil)
        stale.synced(at: ContinuousClock.now - .seconds(2))
        #expect(!stale.isFresh)
        #expect(stale.trusted.fresh == false && stale.trusted.catalogue == nil)
    }

    @Test func anUnauditedChangeIsRefusedOnAServingStoreAndNothingIsWritten() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try Self.serving(database)
        #expect(throws: UnauditedChange.self) {
            try store.write { writer in
                try writer.save(UserSettings(user: UserID(trusted: "u1"), locationServicesEnabled: false, updatedAt: Self.now))
            }
        }
        #expect(try store.read { try $0.userSettings(UserID(trusted: "u1")) } == nil)
        // A store opened for a command keeps nothing in memory and does not check.
        let command = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
        try command.write { writer in
            try writer.save(UserSettings(user: UserID(trusted: "u1"), locationServicesEnabled: false, updatedAt: Self.now))
        }
    }
}
