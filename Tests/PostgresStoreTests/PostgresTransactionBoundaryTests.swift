import Foundation
import PermissionDomain
import PostgresTestServer
import StoreTestSupport
import TestThreads
import Testing

@testable import PostgresStore

/// Live: a body that runs inside a transaction it does not own leaves it open: a write in the
/// writer's batch, the body of `inTransaction`. One that commits or rolls it back stops the
/// process. PostgreSQL would take the caller's `COMMIT` after it with a warning, and the writer
/// would answer the bodies before it wrongly.
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct PostgresTransactionBoundaryTests {
    /// The standard error of a child process that ran `body` and failed, or "".
    private static func stopMessage(of exit: ExitTest.Result?) -> String {
        exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
    }

    @Test("a body of inTransaction that commits stops the process")
    func inTransactionBodyThatCommits() async throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [database = database as String] in
            let connection = try PostgresConnection(database)
            try connection.execute("CREATE TABLE t (x int)")
            try connection.inTransaction {
                try connection.execute("COMMIT")
                try connection.execute("INSERT INTO t VALUES (1)")
            }
        }
        let message = Self.stopMessage(of: exit)
        #expect(message.contains("the body of inTransaction ended the transaction it runs in"), "\(message)")
    }

    @Test("a store write that commits its batch stops the process")
    func storeWriteThatCommits() async throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [database = database as String] in
            let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests, poolSize: 1)
            try store.write { writer in
                guard let session = writer as? PostgresSession else { preconditionFailure("not the PostgreSQL store's session") }
                try session.connection.execute("COMMIT")
            }
        }
        let message = Self.stopMessage(of: exit)
        #expect(message.contains("a write body ended the transaction it runs in"), "\(message)")
    }

    @Test func aBodyThatKeepsTheTransactionOpenCommits() throws {
        let connection = try PostgresConnection(try PostgresServer.shared.get().freshDatabase())
        try connection.execute("CREATE TABLE t (x int)")
        try connection.inTransaction {
            try connection.execute("SAVEPOINT nested")
            try connection.execute("INSERT INTO t VALUES (1)")
            try connection.execute("RELEASE SAVEPOINT nested")
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.query(PreparedStatement("SELECT count(*) FROM t"))[0].int64(at: 0) == 1)
    }
}
