import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

@Suite struct DatabaseTests {
    @Test func pragmasAreInEffectOnTheWriter() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        func pragma(_ name: String) throws -> String? {
            try database.withStatement("PRAGMA \(name)") { try $0.step() ? $0.string(at: 0) : nil }
        }
        #expect(try pragma("journal_mode") == "wal")
        #expect(try pragma("synchronous") == "2")
        #expect(try pragma("foreign_keys") == "1")
        #expect(try pragma("busy_timeout") == "5000")
        #expect(try pragma("cache_size") == "-8192")
    }

    @Test func memoryStatisticsAreOffBeforeTheFirstConnection() throws {
        let directory = try TemporaryDirectory()
        _ = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        #expect(Database.isLibraryConfigured)
    }

    @Test func readOnlyConnectionCannotWrite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("db.sqlite")
        let writer = try Database(path: path, mode: .readWrite)
        try writer.execute("CREATE TABLE t (x INTEGER)")
        let reader = try Database(path: path, mode: .readOnly)
        let error = #expect(throws: SQLiteError.self) { try reader.execute("INSERT INTO t VALUES (1)") }
        #expect(error?.isReadOnly == true)
    }

    @Test func openingAMissingReadOnlyFileFailsWithCantOpen() throws {
        let directory = try TemporaryDirectory()
        let error = #expect(throws: SQLiteError.self) {
            _ = try Database(path: directory.file("missing/db.sqlite"), mode: .readOnly)
        }
        #expect(error?.code == 14)  // SQLITE_CANTOPEN
    }

    @Test func cachedStatementsAreReusedAndReset() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        try database.execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB); CREATE INDEX t_name ON t (name)")
        let insert = "INSERT INTO t (id, name, score, data) VALUES (?, ?, ?, ?)"
        for id in 1...3 {
            try database.withStatement(insert) { statement in
                statement.bind(Int64(id), at: 1)
                statement.bind("n\(id)", at: 2)
                statement.bind(Double(id) / 2, at: 3)
                statement.bind(blob: [UInt8(id), 0, 255], at: 4)
                try statement.execute()
            }
        }
        let first = try database.cachedStatement(insert)
        #expect(try database.cachedStatement(insert) === first)
        let countBefore = database.cachedStatementCount
        let select = "SELECT name, score, data FROM t WHERE id = ?"
        for id in [2, 3, 2] {
            let row = try database.withStatement(select) { statement -> (String?, Double, [UInt8]?)? in
                statement.bind(Int64(id), at: 1)
                guard try statement.step() else { return nil }
                return (statement.string(at: 0), statement.double(at: 1), statement.blob(at: 2))
            }
            #expect(row?.0 == "n\(id)")
            #expect(row?.1 == Double(id) / 2)
            #expect(row?.2 == [UInt8(id), 0, 255])
        }
        #expect(database.cachedStatementCount == countBefore + 1)
        // Bindings are cleared on reset: a missing bind reads as NULL.
        let nullName = try database.withStatement("SELECT ? IS NULL") { try $0.step() && $0.bool(at: 0) }
        #expect(nullName)
        #expect(!database.isInTransaction)
    }

    /// `reset()` ends a partly read result and clears the bindings and a remembered bind
    /// failure; a second reset in a row (helpers nested around one statement) changes nothing.
    @Test func resetTwiceInARowLeavesTheStatementClean() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        try database.execute("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3)")
        let statement = try database.cachedStatement("SELECT n FROM t WHERE n >= ? ORDER BY n")
        func all() throws -> [Int] {
            var seen: [Int] = []
            while try statement.step() { seen.append(statement.int(at: 0)) }
            return seen
        }
        statement.bind(Int64(2), at: 1)
        #expect(try statement.step())
        #expect(statement.int(at: 0) == 2)
        statement.reset()
        statement.reset()
        #expect(try all() == [])  // unbound: n >= NULL matches nothing
        statement.reset()
        statement.bind(Int64(1), at: 1)
        #expect(try all() == [1, 2, 3])
        statement.reset()
        statement.bind(Int64(1), at: 5)  // out of range: remembered for the next step
        statement.reset()
        statement.reset()
        statement.bind(Int64(3), at: 1)
        #expect(try all() == [3])
        statement.reset()
        // No snapshot kept from before: a change made on another connection is seen.
        let other = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        try other.execute("DELETE FROM t WHERE n = 2")
        statement.bind(Int64(1), at: 1)
        #expect(try all() == [1, 3])
        statement.reset()
    }

    @Test func textRoundTripsUnicodeAndEmptyStrings() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        for text in ["", "héllo wörld ✓", "a\u{0}b"] {
            let back = try database.withStatement("SELECT ?") { statement -> String? in
                statement.bind(text, at: 1)
                return try statement.step() ? statement.string(at: 0) : nil
            }
            #expect(back == text)
        }
    }

    /// `Statement.withTexts` binds without copying: small (inline) and large strings, empty
    /// text (not NULL), non-ASCII; the bindings are gone when it returns; slots reuse statements.
    @Test func textsBoundInPlaceMatchAndAreClearedAfterwards() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        try database.execute("CREATE TABLE t (a TEXT, b TEXT, c TEXT, n INTEGER)")
        let long = String(repeating: "long-", count: 40)
        let rows: [(String, String, String)] = [("x", long, ""), ("é中😀", "b", "c"), ("", "", "")]
        for (index, row) in rows.enumerated() {
            try database.withStatement("INSERT INTO t VALUES (?1, ?2, ?3, ?4)") { statement in
                statement.bind(row.0, at: 1)
                statement.bind(row.1, at: 2)
                statement.bind(row.2, at: 3)
                statement.bind(index, at: 4)
                try statement.execute()
            }
        }
        let slot = StatementSlot("SELECT n FROM t WHERE a = ?1 AND b = ?2 AND c = ?3")
        for (index, row) in rows.enumerated() {
            let found = try database.withStatement(slot) { statement in
                try statement.withTexts(row.0, row.1, row.2) { try $0.step() ? $0.int(at: 0) : nil }
            }
            #expect(found == index)
        }
        #expect(try database.withStatement(slot) { try $0.withTexts("x", long, "nope") { try $0.step() } } == false)
        // Cleared: stepping again without binding compares with NULL and finds nothing.
        let leftOver = try database.withStatement(StatementSlot("SELECT ?1 IS NULL AND ?2 IS NULL")) { statement in
            try statement.withTexts("a", "b", "c") { _ in }
            return try statement.step() ? statement.bool(at: 0) : false
        }
        #expect(leftOver)
        #expect(database.cachedStatementCount >= 2)
    }

    @Test func errorsCarrySQLButNotBoundValues() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        try database.execute("CREATE TABLE secrets (id TEXT PRIMARY KEY, value TEXT NOT NULL)")
        let insert = "INSERT INTO secrets (id, value) VALUES (?, ?)"
        func add() throws {
            try database.withStatement(insert) { statement in
                statement.bind("key-1", at: 1)
                statement.bind("hunter2-secret", at: 2)
                try statement.execute()
            }
        }
        try add()
        let error = #expect(throws: SQLiteError.self) { try add() }
        #expect(error?.code == 19)  // SQLITE_CONSTRAINT
        #expect(error?.extendedCode == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(error?.sql == insert)
        #expect(error?.isConstraintViolation == true)
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("UNIQUE constraint failed: secrets.id"))
        #expect(!text.contains("hunter2-secret"))
        #expect(!text.contains("key-1"))
        // The statement is usable again after the failure.
        #expect(try database.withStatement("SELECT count(*) FROM secrets") { try $0.step() ? $0.int(at: 0) : -1 } == 1)
    }

    @Test func syntaxErrorsNameTheStatement() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        let error = #expect(throws: SQLiteError.self) { try database.execute("CREATE TABLE a (x); SELEC 1") }
        #expect(error?.sql == "SELEC 1")
        #expect(error?.message.contains("syntax error") == true)
    }

    @Test func bindOutOfRangeIsReportedByStep() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        let error = #expect(throws: SQLiteError.self) {
            try database.withStatement("SELECT ?") { statement in
                statement.bind(Int64(1), at: 2)
                _ = try statement.step()
            }
        }
        #expect(error?.code == 25)  // SQLITE_RANGE
        #expect(error?.sql == "SELECT ?")
    }

    /// A function added to a connection is called once for each row that reaches it, from a
    /// temporary trigger too, with its arguments as text (nil for NULL), and returns NULL.
    @Test func anAddedFunctionSeesEachCallsArguments() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        var calls: [[String?]] = []
        try database.addFunction("seen", arguments: 2) { arguments in
            calls.append([arguments.text(at: 0), arguments.text(at: 1)])
        }
        try database.execute(
            """
            CREATE TABLE t (x TEXT, y TEXT);
            CREATE TEMP TRIGGER t_inserted AFTER INSERT ON main.t BEGIN SELECT seen(NEW.x, NEW.y); END;
            INSERT INTO t VALUES ('a', NULL), ('ü', 'b'), (3, '');
            """)
        #expect(calls == [["a", nil], ["ü", "b"], ["3", ""]])
        #expect(try database.withStatement("SELECT seen('c', 'd') IS NULL") { try $0.step() ? $0.int(at: 0) : -1 } == 1)
        #expect(calls.count == 4)
        let error = #expect(throws: SQLiteError.self) { try database.execute("SELECT seen('only one')") }
        #expect(error?.message.contains("wrong number of arguments") == true, "\(String(describing: error))")
    }

    @Test func anAddedFunctionSQLiteRefusesThrows() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        // At most 127 arguments (https://www.sqlite.org/c3ref/create_function.html).
        #expect(throws: SQLiteError.self) { try database.addFunction("too_many", arguments: 200) { _ in } }
    }

    @Test func transactionRollsBackOnThrowAndRethrowsTheBodyError() throws {
        struct BodyError: Error {}
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        try database.execute("CREATE TABLE t (x INTEGER)")
        #expect(throws: BodyError.self) {
            try database.inTransaction {
                try database.execute("INSERT INTO t VALUES (1)")
                throw BodyError()
            }
        }
        #expect(!database.isInTransaction)
        try database.inTransaction { try database.execute("INSERT INTO t VALUES (2)") }
        #expect(try database.withStatement("SELECT group_concat(x) FROM t") { try $0.step() ? $0.string(at: 0) : nil } == "2")
    }
}

#if DEBUG
/// A `StatementSlot` made per request would grow every connection's array without bound: the
/// process stops past ``StatementSlot/maximum`` instead (release builds too: a precondition).
@Test func aStatementSlotMadePerRequestStopsTheProcess() async {
    let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        for number in 0...StatementSlot.maximum { _ = StatementSlot("SELECT \(number)") }
    }
    let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
    #expect(message.contains("slots are made once, in a static let"), "\(message)")
}
#endif
