import Foundation
import HTTPCore
import Logging
import Ownership
import PermissionAPI
import PermissionDomain
import PermissionWire
import PostgresStore
import StoreTestSupport
import Synchronization
import Testing

/// Revisions (SPEC §9): `Permission-Revision` on writes, `Permission-Consistency: at-least` on
/// reads, and where a read runs (on the event loop only when it cannot wait). On both stores.
@Suite struct ConsistencyTests {
    @Test func everySuccessfulWriteAnswersTheRevisionThatIncludesIt() throws {
        let app = try TestApp()
        let first = try app.set("camera", #"{"status":"denied"}"#)
        #expect(first.status == 200)
        #expect(first.headers["Permission-Revision"] == "1")
        let second = try app.set("microphone", #"{"status":"denied"}"#)
        #expect(second.headers["Permission-Revision"] == "2")
        // The audit log agrees: the revision is the seq of the write's entry.
        #expect(try app.audit().map(\.seq) == [1, 2])
        // A refused write changes nothing and names no revision.
        let refused = try app.set("camera", #"{"status":"sideways"}"#)
        #expect(refused.status == 400)
        #expect(refused.headers["Permission-Revision"] == nil)
        // Reads name none either.
        #expect(try app.send(.get, TestApp.path("u42", "com.example.maps", "camera")).headers["Permission-Revision"] == nil)
    }

    @Test func aReadAtARevisionAlreadyShownIsAnsweredAtOnce() throws {
        let app = try TestApp()
        let revision = try #require(try app.set("camera", #"{"status":"denied"}"#).headers["Permission-Revision"])
        let read = try app.send(
            .get, TestApp.path("u42", "com.example.maps", "camera"),
            headers: [("Permission-Consistency", "at-least \(revision)")])
        #expect(read.status == 200)
        #expect(try read.decode(Authorization.self).status == .denied)
        // Case-insensitive token, extra spaces.
        let spaced = try app.send(
            .get, "/v1/audit", headers: [("Permission-Consistency", "AT-LEAST   \(revision)")])
        #expect(spaced.status == 200)
    }

    @Test func aRevisionNoWriteMadeIs412AtOnce() throws {
        let app = try TestApp()
        try app.set("camera", #"{"status":"denied"}"#)
        let started = ContinuousClock.now
        let read = try app.send(
            .get, TestApp.path("u42", "com.example.maps", "camera"),
            headers: [("Permission-Consistency", "at-least 99")])
        #expect(read.status == 412)
        #expect(read.problemType == .preconditionFailed)
        #expect(read.problem?.detail.contains("the newest is 1") == true, "\(read.text)")
        #expect(ContinuousClock.now - started < .milliseconds(900))  // nothing to wait for
    }

    /// A write sends `Permission-Consistency` too: an app's request decides from this replica's
    /// memory whether to prompt, so after a change acknowledged on another replica it waits
    /// until this one shows it (PostgreSQL; on SQLite every revision made is shown at once).
    @Test func aWriteWaitsForTheRevisionItAsksFor() throws {
        let app = try TestApp(followInterval: .seconds(60))
        try app.registerApp()
        _ = try app.grant("camera", "full", "allow")
        let path = TestApp.path("u42", "com.example.maps", "camera") + "/request"
        #expect(
            try app.send(.post, path, json: #"{"level":"full"}"#).decode(RequestOutcome.self).authorization.status == .authorized)
        // A revision no write made: 412 at once, nothing written.
        let before = try app.lastSeq()
        let unmade = try app.send(
            .post, path, json: #"{"level":"full"}"#, headers: [("Permission-Consistency", "at-least \(before + 50)")])
        #expect(unmade.status == 412 && unmade.problemType == .preconditionFailed)
        #expect(
            try app.send(
                .put, TestApp.path("u42", "com.example.maps", "microphone"), json: #"{"status":"denied"}"#,
                headers: [("Permission-Consistency", "at-most 1")]
            ).status == 400)
        #expect(try app.lastSeq() == before, "nothing was written")
        guard let connectionString = app.postgresConnectionString, let postgres = app.postgresStore else { return }
        // Another replica revokes; this one's follower sleeps, so its memory still says authorized.
        let other = try PostgresPermissionStore.open(
            connectionString: connectionString, keyring: .forTests, poolSize: 1,
            readModel: .init(cacheEntries: 100))
        defer { other.close() }
        // Memory is trusted for a second after this replica last read the log (here: its own
        // grant's commit); a loaded machine may take longer to the request, which then reads the
        // database, rightly. Made again with another user until memory was trusted throughout.
        var attempt = 0
        while true {
            attempt += 1
            let user = "s\(attempt)"
            let userPath = TestApp.path(user, "com.example.maps", "camera") + "/request"
            _ = try app.grant("camera", "full", "allow", user: user)
            let cached = try app.send(.post, userPath, json: #"{"level":"full"}"#).decode(RequestOutcome.self)
            #expect(cached.authorization.status == .authorized)  // and now in memory
            let revoked = try PermissionService(store: other, clock: app.clock).revoke(
                user: UserID(user), app: AppID("com.example.maps"), service: ServiceID("camera"), actor: .system,
                requestId: "r")
            let revision = try other.visibleRevision()
            #expect(revoked.status == .denied && revision > before)
            let stale = try app.send(.post, userPath, json: #"{"level":"full"}"#).decode(RequestOutcome.self)
            // Nothing refreshes memory meanwhile (no commit here, no wait, a 60 s follower):
            // trusted now, it was trusted for the request.
            let trusted = postgres.readModelState?.fresh == true
            if trusted || attempt == 5 {
                #expect(trusted, "memory was never trusted through a request in \(attempt) attempts")
                #expect(stale.authorization.status == .authorized, "(this replica has not read the log yet)")
            } else {
                // Trusted when it began, or not: the second may have ended during the request.
                continue
            }
            let fresh = try app.send(
                .post, userPath, json: #"{"level":"full"}"#, headers: [("Permission-Consistency", "at-least \(revision)")])
            #expect(fresh.status == 200, "\(fresh.text)")
            #expect(try fresh.decode(RequestOutcome.self).authorization.status == .denied, "\(fresh.text)")
            break
        }
    }

    /// PostgreSQL: a revision another replica committed that this one does not show within a
    /// second (its follower stopped here) is 503 `revision-unavailable`, to retry.
    @Test(.enabled(if: !TestApp.onSQLite, "replicas on PostgreSQL only"))
    func aRevisionCommittedElsewhereButNotShownHereIs503AfterASecond() throws {
        let app = try TestApp()
        let other = try #require(try app.otherReplicaWhileThisOneStopsFollowing())
        let seq = try other.write { writer in
            try writer.append(AuditEntry(at: TestApp.start, actor: .system, action: AuditAction("test.elsewhere")))
        }
        let started = ContinuousClock.now
        let read = try app.send(
            .get, TestApp.path("u42", "com.example.maps", "camera"),
            headers: [("Permission-Consistency", "at-least \(seq)")])
        #expect(read.status == 503)
        #expect(read.problemType == .revisionUnavailable)
        #expect(read.headers["Retry-After"] == "1")
        #expect(ContinuousClock.now - started >= .milliseconds(900))
    }

    /// A request that asks for a revision is answered from state that includes it, its key's
    /// included: a key revoked at that revision (by another process or replica, which this
    /// one's memory of verified keys has not heard of yet) is refused, not served from memory.
    @Test func aRequestThatWaitsForARevisionSeesItsKeyRevokedThere() throws {
        let app = try TestApp()
        let (id, secret) = try app.storeKey(role: .auditor)
        let key = [("Authorization", "Bearer \(secret)")]
        #expect(try app.send(.get, "/v1/audit", headers: key).status == 200)  // verified, and kept
        let stored = try #require(try app.store.read { try $0.apiKey(id: id) })
        let revoked = {
            var key = stored
            key.revokedAt = TestApp.start
            return key
        }()
        let revision = try app.store.write { writer -> Int64 in
            try writer.save(revoked)
            return try writer.append(AuditEntry(at: TestApp.start, actor: .system, action: .keyRevoked))
        }
        let refused = try app.send(
            .get, "/v1/audit", headers: key + [("Permission-Consistency", "at-least \(revision)")])
        #expect(refused.status == 401, "\(refused.status) \(refused.text)")
    }

    /// PostgreSQL: a key another replica revoked stops working here as soon as this replica's
    /// memory is no longer trusted (its follower could not read the log for a second), not
    /// after the 5 s its verified keys are otherwise kept: the key is read from the database.
    @Test(.enabled(if: !TestApp.onSQLite, "replicas on PostgreSQL only"))
    func aKeyRevokedElsewhereStopsWorkingHereOnceMemoryIsNotTrusted() throws {
        let app = try TestApp()
        let (id, secret) = try app.storeKey(role: .auditor)
        let key = [("Authorization", "Bearer \(secret)")]
        #expect(try app.send(.get, "/v1/audit", headers: key).status == 200)  // verified, and kept
        let other = try #require(try app.otherReplicaWhileThisOneStopsFollowing())
        let stored = try #require(try other.read { try $0.apiKey(id: id) })
        let revoked = {
            var key = stored
            key.revokedAt = TestApp.start
            return key
        }()
        try other.write { try $0.save(revoked) }
        Thread.sleep(forTimeInterval: 1.2)  // past the read model's trust
        let refused = try app.send(.get, "/v1/audit", headers: key)
        #expect(refused.status == 401, "\(refused.status) \(refused.text)")
    }

    @Test(arguments: [
        "99", "at-least", "at-least -1", "at-least 1x", "at-most 1", "at-least 1 2", "at-least 9999999999999999999",
    ])
    func aMalformedConsistencyFieldIs400(_ field: String) throws {
        let app = try TestApp()
        let read = try app.send(
            .get, TestApp.path("u42", "com.example.maps", "camera"), headers: [("Permission-Consistency", field)])
        #expect(read.status == 400)
        #expect(read.problem?.detail.contains("Permission-Consistency") == true)
    }

    /// A write that changes nothing answers a revision that includes the change its answer
    /// shows, on both stores: on PostgreSQL also when another replica made that change and
    /// this one has not applied it yet (here it does not follow the log at all), so a read
    /// anywhere at that revision shows what the write answered.
    @Test func aWriteThatChangesNothingAnswersARevisionThatShowsItsState() throws {
        let app = try TestApp()
        try app.registerApp()
        let path = TestApp.path("u42", "com.example.maps", "camera")
        let first = try app.set("camera", #"{"status":"denied"}"#)
        var changed = try #require(first.headers["Permission-Revision"].flatMap { Int64($0) })
        if let other = try app.otherReplicaWhileThisOneStopsFollowing() {
            let elsewhere = try PermissionService(store: other, clock: app.clock).setAuthorization(
                user: UserID("u42"), app: AppID("com.example.maps"), service: ServiceID("camera"), status: .authorized,
                level: Level("full"), actor: .system, requestId: nil)
            #expect(elsewhere.status == .authorized)
            changed = try other.read { try $0.lastAuditSeq() }
        }
        let status = TestApp.onSQLite ? #"{"status":"denied"}"# : #"{"status":"authorized","level":"full"}"#
        let noOp = try app.set("camera", status)
        #expect(noOp.status == 200, "\(noOp.text)")
        #expect(try app.lastSeq() == changed)  // nothing was written
        let revision = try #require(noOp.headers["Permission-Revision"].flatMap { Int64($0) })
        #expect(revision >= changed)
        let read = try app.send(.get, path, headers: [("Permission-Consistency", "at-least \(revision)")])
        #expect(read.status == 200, "\(read.text)")
        #expect(try read.decode(Authorization.self).status == (TestApp.onSQLite ? .denied : .authorized))
    }

    /// A status read sent to the event loop because its record was in memory, whose record
    /// leaves memory before it runs (a write, here this replica's own; on a cluster another
    /// replica's), never waits on the loop: on PostgreSQL it goes on on a worker thread, from the
    /// database (debug builds would stop at a round trip on the loop); on SQLite, whose reads
    /// never wait, it reads the file there. The same for a key whose verification was forgotten
    /// meanwhile (a key revoked). Both answer what the write left.
    @Test func aReadSentToTheLoopWhoseAnswerLeftMemoryRunsOnAWorker() throws {
        let app = try TestApp()
        try app.registerApp()
        #expect(try app.set("camera", #"{"status":"denied"}"#).status == 200)
        let path = TestApp.path("u42", "com.example.maps", "camera")
        let connection = ConnectionStorage()
        let loop = DispatchQueue(label: "test loop")
        _ = QueueOwner("a test loop", marking: loop, forbidsWaiting: true)
        let offloaded = Counter()
        // As the engine serves a request: the decision, then (here after a change) the responder.
        func read(after change: () throws -> Void) throws -> TestResponse {
            let head = Self.head(path, key: app.adminKey)
            var context = Self.context(connection)
            #expect(try Self.executionAfterARead(app, path, connection) { prepare in prepare(head, &context) } == .eventLoop)
            try change()
            context.worker = { job in
                offloaded.add()
                DispatchQueue.global().async(execute: job)
            }
            var response = try loop.sync {
                try app.application.responder.respond(to: HTTPRequest(head: head, body: []), context: context)
            }
            if let deferred = response.deferred { response = try deferred.waitForOutcome().get() }
            guard case .bytes(let body) = response.body else { throw TestFailure("not a body") }
            return TestResponse(status: response.status.code, headers: response.headers, body: body)
        }
        let afterWrite = try read {
            let changed = try app.set("camera", #"{"status":"authorized","level":"full"}"#)
            #expect(changed.status == 200)
        }
        #expect(afterWrite.status == 200, "\(afterWrite.text)")
        #expect(try afterWrite.decode(Authorization.self).status == .authorized)
        #expect(offloaded.value == (TestApp.onSQLite ? 0 : 1))
        // Cached again by that read; now the key's verification goes (another key revoked).
        let (other, _) = try app.storeKey(role: .admin)
        let afterRevocation = try read {
            let revoked = try app.send(.delete, "/v1/keys/\(other.rawValue)")
            #expect(revoked.status == 204)
        }
        #expect(afterRevocation.status == 200, "\(afterRevocation.text)")
        #expect(try afterRevocation.decode(Authorization.self).status == .authorized)
        #expect(offloaded.value == (TestApp.onSQLite ? 0 : 2))
    }

    /// A status read's head with the key `key`.
    private static func head(_ path: String, key: String, _ headers: [(String, String)] = []) -> HTTPRequestHead {
        HTTPRequestHead(
            method: .get, target: path, path: path, query: nil, version: .http1_1,
            headers: HTTPHeaders([("Host", "test"), ("Authorization", "Bearer \(key)")] + headers),
            authority: "test", keepAlive: true, framing: .none, expectContinue: false)
    }

    /// A request's context on `connection`.
    private static func context(_ connection: ConnectionStorage) -> RequestContext {
        var context = RequestContext(
            requestId: "r", logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            remoteAddress: "127.0.0.1:1")
        context.connection = connection
        return context
    }

    /// Where a read runs (`decide`) right after a read of `path` that put its record in memory
    /// and had `connection` remember its key. On PostgreSQL memory is trusted only while the
    /// follower read the log to its end within the last second, and a remembered key for 5 s: a
    /// loaded machine may let either lapse before the decision, which is then made again after
    /// another such read, until it is the event loop or 30 s passed.
    /// - Parameter decide: given the responder's `prepare`, the execution it decides.
    private static func executionAfterARead(
        _ app: TestApp, _ path: String, _ connection: ConnectionStorage,
        _ decide: ((HTTPRequestHead, inout RequestContext) -> HTTPExecution) -> HTTPExecution
    ) throws -> HTTPExecution {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            try settle(app)
            #expect(try app.send(.get, path, connection: connection).status == 200)  // caches it, remembers the key
            let decided = decide { head, context in app.application.responder.prepare(head, context: &context) }
            if decided == .eventLoop || ContinuousClock.now > deadline { return decided }
        }
    }

    /// On PostgreSQL the setup's own entries (the keys made at start) reach the read model
    /// through the follower, and applying `key.created` ends the keys verified from memory:
    /// lets it apply everything written so far, and keep memory trusted, before deciding.
    private static func settle(_ app: TestApp) throws {
        guard let postgres = app.postgresStore else { return }
        let last = try postgres.read { try $0.lastAuditSeq() }
        let deadline = ContinuousClock.now + .seconds(10)
        while (postgres.readModelState?.visible ?? 0) < last || postgres.readModelState?.fresh != true,
            ContinuousClock.now < deadline
        {
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// A status read whose record, settings and key are in memory runs on the event loop on
    /// both stores; on PostgreSQL one that asks for a revision not shown yet runs on the worker
    /// queue, where waiting is allowed (SQLite answers it 412 at once). On PostgreSQL a read
    /// whose record is not cached runs there too. (Another replica's change forgetting a
    /// record: ReplicaTests.)
    @Test func whereAStatusReadRuns() throws {
        let app = try TestApp()
        let denied = try app.set("camera", #"{"status":"denied"}"#)
        #expect(denied.status == 200, "\(denied.text)")
        let path = TestApp.path("u42", "com.example.maps", "camera")
        let connection = ConnectionStorage()
        func execution(_ headers: [(String, String)]) -> HTTPExecution {
            var context = Self.context(connection)
            return app.application.responder.prepare(Self.head(path, key: app.adminKey, headers), context: &context)
        }
        try Self.settle(app)
        if !TestApp.onSQLite { #expect(execution([]) == .worker) }  // not cached yet
        #expect(try Self.executionAfterARead(app, path, connection) { _ in execution([]) } == .eventLoop)
        let atLeast1 = [("Permission-Consistency", "at-least 1")]
        #expect(try Self.executionAfterARead(app, path, connection) { _ in execution(atLeast1) } == .eventLoop)
        // A revision not shown: on PostgreSQL it may still come, so the read waits where waiting
        // is allowed; SQLite shows every commit when it returns, so there it was never made and
        // the answer is a 412 at once, on the loop, with no per-request decision at all.
        #expect(execution([("Permission-Consistency", "at-least 2")]) == (TestApp.onSQLite ? .eventLoop : .worker))
        if TestApp.onSQLite {
            let started = ContinuousClock.now
            let refused = try app.send(.get, path, headers: [("Permission-Consistency", "at-least 2")])
            #expect(refused.status == 412)
            #expect(ContinuousClock.now - started < .milliseconds(500))
        }
        // A change replaces the record in memory: the next read from memory sees it.
        let askAgain = try app.set("camera", #"{"status":"notDetermined"}"#)
        #expect(askAgain.status == 200, "\(askAgain.text)")
        let read = try app.send(.get, path, connection: connection)
        #expect(try read.decode(Authorization.self).status == .notDetermined)
    }
}

/// A count that any thread adds to.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
