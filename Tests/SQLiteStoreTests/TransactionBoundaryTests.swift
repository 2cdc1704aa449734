import AuditKeys
import Foundation
import PermissionDomain
import StoreTestSupport
import TestSupport
import TestThreads
import Testing

@testable import SQLiteStore

/// A body that runs inside a transaction it does not own leaves it open: a write in the
/// writer's batch, a read in its snapshot, the body of `inTransaction`. One that commits or
/// rolls it back stops the process. The writer would otherwise answer the bodies before it
/// wrongly: failed though committed, or committed though rolled back.
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct TransactionBoundaryTests {
    /// The standard error of a child process that ran `body` and failed, or "".
    private static func stopMessage(of exit: ExitTest.Result?) -> String {
        exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
    }

    /// A pool on file `name` in `directory`, with an empty table `t (x INTEGER)`.
    private static func pool(in directory: TemporaryDirectory, _ name: String) throws -> DatabasePool {
        let pool = try DatabasePool(path: directory.file(name))
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        return pool
    }

    @Test("a write body that commits its batch stops the process")
    func writeBodyThatCommits() async throws {
        // The child ends without releasing anything: the directory is made and removed here.
        let parent = try TemporaryDirectory()
        let path = parent.path
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let directory = TemporaryDirectory.existing(path)
            let pool = try Self.pool(in: directory, "commit-in-write.sqlite")
            try pool.write { database in
                try database.execute("INSERT INTO t VALUES (1)")
                try database.execute("COMMIT")
            }
        }
        let message = Self.stopMessage(of: exit)
        #expect(message.contains("a write body ended the transaction it runs in"), "\(message)")
    }

    @Test("a store write that rolls back its batch stops the process")
    func storeWriteThatRollsBack() async throws {
        // The child ends without releasing anything: the directory is made and removed here.
        let parent = try TemporaryDirectory()
        let path = parent.path
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let directory = TemporaryDirectory.existing(path)
            let store = try SQLitePermissionStore.open(path: directory.file("rollback-in-write.sqlite"), keyring: .forTests)
            try store.write { writer in
                guard let session = writer as? StoreSession else { preconditionFailure("not the SQLite store's session") }
                try session.database.execute("ROLLBACK")
            }
        }
        let message = Self.stopMessage(of: exit)
        #expect(message.contains("a write body ended the transaction it runs in"), "\(message)")
    }

    @Test("a read body that ends its read transaction stops the process")
    func readBodyThatCommits() async throws {
        // The child ends without releasing anything: the directory is made and removed here.
        let parent = try TemporaryDirectory()
        let path = parent.path
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let directory = TemporaryDirectory.existing(path)
            let pool = try Self.pool(in: directory, "commit-in-read.sqlite")
            _ = try pool.read { database in
                try database.execute("COMMIT")
            }
        }
        let message = Self.stopMessage(of: exit)
        #expect(message.contains("a read body ended the transaction it runs in"), "\(message)")
    }

    @Test("a scan body that ends its read transaction stops the process")
    func scanBodyThatCommits() async throws {
        // The child ends without releasing anything: the directory is made and removed here.
        let parent = try TemporaryDirectory()
        let path = parent.path
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let directory = TemporaryDirectory.existing(path)
            let pool = try Self.pool(in: directory, "commit-in-scan.sqlite")
            _ = try pool.scan { database in
                try database.execute("COMMIT")
            }
        }
        let message = Self.stopMessage(of: exit)
        #expect(message.contains("a read body ended the transaction it runs in"), "\(message)")
    }

    /// A scan ends its snapshot with its body, whether the body returns or throws; the next
    /// scan sees a commit made in between.
    @Test func aScanLeavesNoSnapshotOpen() throws {
        struct Planned: Error {}
        let directory = try TemporaryDirectory()
        let pool = try Self.pool(in: directory, "scan-snapshot.sqlite")
        var scanned: Database?
        let before = try pool.scan { database in
            scanned = database
            return try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 }
        }
        #expect(before == 0)
        #expect(scanned.map { database in database.use.lend { !database.isInTransaction } } == true)
        #expect(throws: Planned.self) {
            try pool.scan { _ in throw Planned() }
        }
        #expect(scanned.map { database in database.use.lend { !database.isInTransaction } } == true)
        try pool.write { try $0.execute("INSERT INTO t VALUES (1)") }
        let after = try pool.scan { database in
            try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 }
        }
        #expect(after == 1)
    }

    @Test("a body of inTransaction that commits stops the process")
    func inTransactionBodyThatCommits() async throws {
        // The child ends without releasing anything: the directory is made and removed here.
        let parent = try TemporaryDirectory()
        let path = parent.path
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let directory = TemporaryDirectory.existing(path)
            let database = try Database(path: directory.file("commit-in-body.sqlite"), mode: .readWrite)
            try database.execute("CREATE TABLE t (x INTEGER)")
            try database.inTransaction {
                try database.execute("COMMIT")
                try database.execute("INSERT INTO t VALUES (1)")
            }
        }
        let message = Self.stopMessage(of: exit)
        #expect(message.contains("the body of inTransaction ended the transaction it runs in"), "\(message)")
    }

    /// What the checks allow: a body's own nested savepoint, and a body whose failed statement
    /// SQLite answered without ending the transaction.
    @Test func bodiesThatKeepTheTransactionOpenRunAsBefore() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("kept-open.sqlite"))
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)") }
        try pool.write { database in
            try database.execute("SAVEPOINT inner")
            try database.execute("INSERT INTO t VALUES (1)")
            try database.execute("RELEASE inner")
            #expect(throws: SQLiteError.self) { try database.execute("INSERT INTO t VALUES (1)") }
            try database.execute("INSERT INTO t VALUES (2)")
        }
        let count = try pool.read { database in
            try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : 0 }
        }
        #expect(count == 2)
    }
}
