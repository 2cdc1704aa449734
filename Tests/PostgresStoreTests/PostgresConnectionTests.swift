import Foundation
import PostgresTestServer
import Testing

@testable import PostgresStore

/// Live: a real PostgreSQL (``PostgresServer/shared``), each test in a database of its own.
@Suite struct PostgresConnectionTests {
    /// A connection to a fresh database on the shared server.
    private func connect() throws -> PostgresConnection {
        try PostgresConnection(try PostgresServer.shared.get().freshDatabase())
    }

    @Test func connectsWithApplicationNameAndUTF8() throws {
        let connection = try connect()
        #expect(connection.isConnected)
        #expect(connection.serverVersion >= 150_000)
        #expect(connection.backendPID > 0)
        let rows = try connection.query(
            PreparedStatement(
                "SELECT current_setting('application_name'), current_setting('client_encoding'), current_setting('server_encoding')"
            ))
        #expect(rows.count == 1)
        #expect(try rows[0].string(at: 0) == "permission-service")
        #expect(try rows[0].string(at: 1) == "UTF8")
        #expect(try rows[0].string(at: 2) == "UTF8")
        #expect(!connection.redactedConnectionString.contains(try PostgresServer.shared.get().password))
    }

    @Test func connectionStringMayNameItsOwnApplication() throws {
        let connection = try PostgresConnection(try PostgresServer.shared.get().freshDatabase() + " application_name=replica-a")
        let rows = try connection.query(PreparedStatement("SELECT current_setting('application_name')"))
        #expect(try rows[0].string(at: 0) == "replica-a")
    }

    /// A database that stops answering without closing the connection must not hold a call
    /// forever: TCP keepalives and a user timeout are on unless the connection string says
    /// otherwise.
    @Test func keepalivesAndAUserTimeoutAreDefaultsTheStringMayOverride() throws {
        let connection = try connect()
        #expect(connection.option("keepalives") == "1")
        #expect(connection.option("keepalives_idle") == "5")
        #expect(connection.option("tcp_user_timeout") == "10000")
        let overridden = try PostgresConnection(try PostgresServer.shared.get().freshDatabase() + " tcp_user_timeout=2500")
        #expect(overridden.option("tcp_user_timeout") == "2500")
        #expect(overridden.option("no_such_option") == nil)
    }

    @Test func executeRunsStatementsWithoutResults() throws {
        let connection = try connect()
        try connection.execute(
            """
            CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL);
            INSERT INTO t VALUES (1, 'one'), (2, 'two');
            -- a comment
            """)
        try connection.execute("-- only a comment")
        let rows = try connection.query(PreparedStatement("SELECT id, name FROM t ORDER BY id"))
        #expect(rows.count == 2)
        #expect(rows.columnCount == 2)
        #expect(rows.columnName(at: 1) == "name")
        #expect(try rows[1].int64(at: 0) == 2)
        #expect(try rows[1].string(at: 1) == "two")
        let error = #expect(throws: PostgresError.self) { try connection.execute("SELEC 1") }
        #expect(error?.sqlState == "42601")  // syntax_error
        #expect(error?.sql == "SELEC 1")
    }

    static let insertRow = PreparedStatement("INSERT INTO v (i, s, b, d) VALUES ($1, $2, $3, $4)")
    static let selectRows = PreparedStatement("SELECT i, s, b, d FROM v ORDER BY n")

    @Test func preparedStatementsTakeEachTypeAndNull() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE v (n serial PRIMARY KEY, i bigint, s text, b boolean, d bytea)")
        let allBytes = (0...255).map { UInt8($0) }
        #expect(try connection.execute(Self.insertRow, [.int64(.max), "grüße, 'quoted' \\ \"x\"", true, .bytes(allBytes)]) == 1)
        try connection.execute(Self.insertRow, [.int64(.min), "", false, .bytes([])])
        try connection.execute(Self.insertRow, [nil, nil, nil, nil])

        let rows = try connection.query(Self.selectRows)
        #expect(rows.count == 3)
        #expect(try rows[0].int64(at: 0) == .max)
        #expect(try rows[0].string(at: 1) == "grüße, 'quoted' \\ \"x\"")
        #expect(try rows[0].bool(at: 2) == true)
        #expect(try rows[0].bytes(at: 3) == allBytes)
        #expect(try rows[1].int64(at: 0) == .min)
        #expect(try rows[1].string(at: 1) == "")
        #expect(try rows[1].bool(at: 2) == false)
        #expect(try rows[1].bytes(at: 3) == [])
        for column in 0..<4 { #expect(rows[2].isNull(at: column)) }
        #expect(try rows[2].optionalInt64(at: 0) == nil)
        #expect(rows[2].optionalString(at: 1) == nil)
        #expect(try rows[2].optionalBool(at: 2) == nil)
        #expect(try rows[2].optionalBytes(at: 3) == nil)
        #expect(!rows[1].isNull(at: 1))  // the empty string is not NULL
        let nullRead = #expect(throws: PostgresError.self) { try rows[2].int64(at: 0) }
        #expect(nullRead?.message == "column 0 (i) is NULL")
        let typeRead = #expect(throws: PostgresError.self) { try rows[0].int64(at: 1) }
        #expect(typeRead?.message == "column 1 (s) is not an integer")
    }

    @Test func aStatementIsPreparedOncePerConnection() throws {
        let connection = try connect()
        let statement = PreparedStatement("SELECT $1::bigint + 1")
        #expect(!connection.isPrepared(statement))
        for value in Int64(1)...3 {
            #expect(try connection.query(statement, [.int64(value)])[0].int64(at: 0) == value + 1)
        }
        #expect(connection.isPrepared(statement))
        let count = try connection.query(
            PreparedStatement("SELECT count(*) FROM pg_prepared_statements WHERE name = $1"), [.text(statement.name)])
        #expect(try count[0].int64(at: 0) == 1)
        #expect(PreparedStatement("SELECT 1").name != PreparedStatement("SELECT 1").name)
    }

    /// A statement prepared whose description then failed (a cancel or a timeout in between)
    /// is on the server: its next use describes it, and does not prepare it twice (which the
    /// server refuses with 42P05, every time, on that connection).
    @Test func aStatementPreparedButNotDescribedIsDescribedNextTime() throws {
        let connection = try connect()
        let statement = PreparedStatement("SELECT $1::bigint * 2")
        // As the first attempt left it: prepared on the server, described nowhere.
        try connection.execute("PREPARE \(statement.name) AS SELECT $1::bigint * 2")
        connection.prepared[statement.name] = PostgresConnection.undescribed
        #expect(try connection.query(statement, [.int64(21)])[0].int64(at: 0) == 42)
        #expect(connection.prepared[statement.name] == 1)
    }

    @Test func wrongParameterCountAndNULTextAreRefusedBeforeTheServer() throws {
        let connection = try connect()
        let statement = PreparedStatement("SELECT $1::bigint, $2::text")
        let count = #expect(throws: PostgresError.self) { try connection.query(statement, [1]) }
        #expect(count?.message == "1 parameters given, the statement takes 2")
        let nul = #expect(throws: PostgresError.self) { try connection.query(statement, [1, .text("a\u{0}b")]) }
        #expect(nul?.message == "a text parameter contains a NUL character")
        #expect(connection.isConnected)
        #expect(try connection.query(statement, [1, "b"])[0].string(at: 1) == "b")
    }

    @Test func aBoundValueNeverAppearsInTheError() throws {
        let connection = try connect()
        let error = #expect(throws: PostgresError.self) {
            try connection.query(PreparedStatement("SELECT $1::bigint"), [.text("secret-value-42")])
        }
        #expect(error?.sqlState == "22P02")  // invalid_text_representation
        #expect(error?.message == "invalid input syntax for type bigint: \"***\"")
        #expect(error.map { !$0.description.contains("secret-value-42") } == true)
    }

    struct Planned: Error {}
    static let insertName = PreparedStatement("INSERT INTO names (name) VALUES ($1)")
    static let countNames = PreparedStatement("SELECT count(*) FROM names")

    @Test func transactionCommitsOrRollsBackOnThrow() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE names (name text PRIMARY KEY)")
        let inserted = try connection.inTransaction {
            try connection.execute(Self.insertName, ["kept"])
        }
        #expect(inserted == 1)
        #expect(throws: Planned.self) {
            try connection.inTransaction(.serializable) {
                try connection.execute(Self.insertName, ["dropped"])
                #expect(connection.isInTransaction)
                throw Planned()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.query(Self.countNames)[0].int64(at: 0) == 1)
    }

    @Test func aFailedStatementCaughtInsideTheBodyStillFailsTheCommit() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE names (name text PRIMARY KEY)")
        try connection.execute(Self.insertName, ["taken"])
        let error = #expect(throws: PostgresError.self) {
            try connection.inTransaction {
                try connection.execute(Self.insertName, ["new"])
                do {
                    try connection.execute(Self.insertName, ["taken"])
                } catch {
                    // Swallowed on purpose: the transaction is aborted all the same.
                }
            }
        }
        #expect(error?.sqlState == "25P02")
        #expect(!connection.isInTransaction)
        #expect(try connection.query(Self.countNames)[0].int64(at: 0) == 1)
    }

    @Test func uniqueViolationIsClassifiedWithoutTheKey() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE names (name text CONSTRAINT names_unique PRIMARY KEY)")
        try connection.execute(Self.insertName, ["secret-name-7"])
        let error = #expect(throws: PostgresError.self) { try connection.execute(Self.insertName, ["secret-name-7"]) }
        #expect(error?.isUniqueViolation == true)
        #expect(error?.isRetryableTransactionFailure == false)
        #expect(error?.isConnectionFailure == false)
        #expect(error?.constraint == "names_unique")
        #expect(error?.sql == Self.insertName.sql)
        #expect(error.map { !$0.description.contains("secret-name-7") } == true)
    }

    @Test func serializationFailureIsClassified() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let first = try PostgresConnection(database)
        let second = try PostgresConnection(database)
        try first.execute("CREATE TABLE counter (id int PRIMARY KEY, n bigint); INSERT INTO counter VALUES (1, 0)")
        let read = PreparedStatement("SELECT n FROM counter WHERE id = 1")
        let bump = PreparedStatement("UPDATE counter SET n = n + 1 WHERE id = 1")
        let error = #expect(throws: PostgresError.self) {
            try first.inTransaction(.serializable) {
                _ = try first.query(read)  // takes the snapshot
                try second.execute(bump)  // commits after it
                try first.execute(bump)
            }
        }
        #expect(error?.isSerializationFailure == true)
        #expect(error?.isRetryableTransactionFailure == true)
        #expect(!first.isInTransaction)
        #expect(try first.query(read)[0].int64(at: 0) == 1)
    }

    /// Hands a connection to one other thread and back (one owner at a time).
    final class Handoff: @unchecked Sendable {
        let connection: PostgresConnection
        var error: (any Error)?
        init(_ connection: PostgresConnection) { self.connection = connection }
    }

    @Test func deadlockIsClassified() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let first = try PostgresConnection(database)
        let second = try PostgresConnection(database)
        let observer = try PostgresConnection(database)
        try first.execute("CREATE TABLE r (id int PRIMARY KEY, n int); INSERT INTO r VALUES (1, 0), (2, 0)")
        try second.execute("SET deadlock_timeout = '50ms'")
        let update = PreparedStatement("UPDATE r SET n = n + 1 WHERE id = $1")
        try first.execute("BEGIN")
        try first.execute(update, [1])
        try second.execute("BEGIN")
        try second.execute(update, [2])

        // The first waits for row 2 on another thread; once the server shows it waiting, the
        // second asks for row 1.
        let handoff = Handoff(first)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do { try handoff.connection.execute(update, [2]) } catch { handoff.error = error }
            done.signal()
        }.start()
        let waiting = PreparedStatement("SELECT count(*) FROM pg_locks WHERE pid = $1 AND NOT granted")
        let pid = Int64(first.backendPID)
        #expect(PostgresServer.waitUntil(seconds: 30) { (try? observer.query(waiting, [.int64(pid)])[0].int64(at: 0)) == 1 })
        var secondError: (any Error)?
        do { try second.execute(update, [1]) } catch { secondError = error }
        #expect(done.wait(timeout: .now() + 30) == .success)

        let errors = [handoff.error, secondError].compactMap { $0 as? PostgresError }
        #expect(errors.count == 1)
        #expect(errors.first?.isDeadlock == true)
        #expect(errors.first?.isRetryableTransactionFailure == true)
        try first.rollback()
        try second.rollback()
    }

    @Test func badPasswordFailsWithThePasswordRedacted() throws {
        let server = try PostgresServer.shared.get()
        let wrong = "wrong-\(UInt32.random(in: 1 ... .max))"
        let keyValue = #expect(throws: PostgresError.self) {
            _ = try PostgresConnection(server.connectionString(password: wrong))
        }
        #expect(keyValue?.isConnectionFailure == true)
        #expect(keyValue?.message.contains("password authentication failed") == true)
        #expect(keyValue?.connection?.contains("password=***") == true)
        #expect(keyValue.map { !$0.description.contains(wrong) } == true)

        let uri = "postgresql://postgres:\(wrong)@/postgres?host=\(server.directory)&port=\(server.port)"
        let uriError = #expect(throws: PostgresError.self) { _ = try PostgresConnection(uri) }
        #expect(uriError?.isConnectionFailure == true)
        #expect(
            uriError?.connection == "postgresql://postgres:***@/postgres?host=\(server.directory)&port=\(server.port)")
        #expect(uriError.map { !$0.description.contains(wrong) } == true)
    }

    @Test func unknownDatabaseFailsWithThePasswordRedacted() throws {
        let server = try PostgresServer.shared.get()
        let error = #expect(throws: PostgresError.self) {
            _ = try PostgresConnection(server.connectionString(database: "no_such_database"))
        }
        #expect(error?.isConnectionFailure == true)
        #expect(error?.message.contains("database \"no_such_database\" does not exist") == true)
        #expect(error.map { !$0.description.contains(server.password) } == true)
    }
}
