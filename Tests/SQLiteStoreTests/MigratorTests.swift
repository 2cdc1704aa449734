import Foundation
import PermissionDomain
import TestSupport
import Testing

@testable import SQLiteStore

@Suite struct MigratorTests {
    private let first = Migration(id: "1-create", sql: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)")
    private let second = Migration(id: "2-insert", sql: "INSERT INTO t VALUES ((SELECT max(x) FROM t) * 10)")
    private let third = Migration(id: "3-alter", sql: "ALTER TABLE t ADD COLUMN y TEXT DEFAULT 'y'")

    private func values(_ database: Database) throws -> [Int] {
        try database.withStatement("SELECT x FROM t ORDER BY rowid") { statement in
            var values: [Int] = []
            while try statement.step() { values.append(statement.int(at: 0)) }
            return values
        }
    }

    @Test func migrationsApplyOnceAndInOrder() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        var migrator = Migrator([first, second])
        #expect(try migrator.pendingMigrations(database).map(\.id) == ["1-create", "2-insert"])
        #expect(throws: MigrationError.pending(ids: ["1-create", "2-insert"])) { try migrator.checkMigrated(database) }
        #expect(try migrator.migrate(database) == ["1-create", "2-insert"])
        #expect(try migrator.migrate(database) == [])
        #expect(try values(database) == [1, 10])
        try migrator.checkMigrated(database)
        migrator.register(third)
        #expect(try migrator.migrate(database) == ["3-alter"])
        #expect(try migrator.appliedIDs(database) == ["1-create", "2-insert", "3-alter"])
        #expect(try values(database) == [1, 10])
    }

    @Test func aFailingMigrationLeavesNoTrace() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        let broken = Migration(id: "2-broken", sql: "CREATE TABLE u (x); INSERT INTO nowhere VALUES (1)")
        let migrator = Migrator([first, broken])
        #expect(throws: SQLiteError.self) { try migrator.migrate(database) }
        #expect(try migrator.appliedIDs(database) == ["1-create"])
        let hasU = try database.withStatement("SELECT count(*) FROM sqlite_schema WHERE name = 'u'") {
            try $0.step() && $0.int(at: 0) == 1
        }
        #expect(!hasU)
    }

    @Test func aDatabaseNewerThanTheCodeIsRefused() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("db.sqlite"), mode: .readWrite)
        try Migrator([first, second, third]).migrate(database)
        let older = Migrator([first, second])
        let expected = MigrationError.databaseNewerThanCode(unknownIDs: ["3-alter"])
        #expect(throws: expected) { try older.migrate(database) }
        #expect(throws: expected) { try older.checkMigrated(database) }
        #expect("\(expected)".contains("newer"))
    }

    @Test func migrationsRunThroughTheWriterAndReadersSeeThem() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("db.sqlite"))
        let migrator = Migrator([first, second])
        #expect(throws: MigrationError.self) { try pool.read { try migrator.checkMigrated($0) } }
        #expect(try pool.writeWithoutTransaction { try migrator.migrate($0) } == ["1-create", "2-insert"])
        try pool.read { try migrator.checkMigrated($0) }
        #expect(try pool.read { try values($0) } == [1, 10])
    }
}
