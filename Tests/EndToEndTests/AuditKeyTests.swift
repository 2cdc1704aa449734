import Foundation
import LiveTestSupport
import PostgresTestServer
import Testing

/// The audit server key as an operator meets it (docs/audit-chain.md, "Erasure and the audit keys"): made
/// beside a new SQLite database, required on PostgreSQL, and a database never opened with another
/// key (a lost key file is refused with exit 78, and no new key is left behind).
@Suite struct AuditKeyTests {
    static func mode(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_mode & 0o777) : nil
    }

    @Test("a new SQLite database gets its key file (0600); a lost key file is refused, and a restored one works")
    func keyFileBesideTheDatabase() throws {
        let directory = try Paths.makeTemporaryDirectory("audit-key")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("keys.sqlite").path
        let keyFile = database + ".audit-key"
        let server = try ServerProcess(database: database, directory: directory)
        #expect(Self.mode(keyFile) == 0o600)
        #expect(server.log().contains("created a new audit server key"), "\(server.log())")
        #expect(
            !server.log().contains(try String(contentsOfFile: keyFile, encoding: .utf8).trimmingCharacters(in: .newlines)),
            "the key is never logged")
        server.send(SIGTERM)
        #expect(server.waitForExit(timeout: 20) == 0)

        // Lost: refused, and no new key takes its place.
        let saved = try Data(contentsOf: URL(fileURLWithPath: keyFile))
        try FileManager.default.removeItem(atPath: keyFile)
        for command in [
            ["serve", "--port", "0"], ["migrate"], ["keys", "list"], ["keys", "create", "--role", "admin", "--name", "x"],
        ] {
            let refused = try SubcommandTests.server(command + ["--database", database])
            #expect(refused.status == 78, "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("audit key file is missing"), "\(command): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: keyFile), "\(command) made no key file")
            for leftover in [database + "-wal", database + "-shm"] {
                #expect(!FileManager.default.fileExists(atPath: leftover), "\(command) left \(leftover)")
            }
        }

        // Another key, named: refused the same way.
        let other = directory.appendingPathComponent("other.key").path
        try Data("\(Data((0..<32).map { UInt8($0) }).base64EncodedString())\n".utf8).write(to: URL(fileURLWithPath: other))
        let wrong = try SubcommandTests.server(["serve", "--port", "0", "--database", database, "--audit-key-file", other])
        #expect(wrong.status == 78 && wrong.stderr.contains("does not match"), "\(wrong.stderr)")
        let malformed = try SubcommandTests.server(
            ["serve", "--port", "0", "--database", database], environment: ["PERMISSION_AUDIT_KEY": "too-short"])
        #expect(malformed.status == 78 && malformed.stderr.contains("32 random bytes"), "\(malformed.stderr)")
        #expect(!malformed.stderr.contains("too-short"), "the key is never logged")

        // Restored: the server starts again on it, made private as the database is, and says so.
        try saved.write(to: URL(fileURLWithPath: keyFile))
        #expect(chmod(keyFile, 0o666) == 0)
        let again = try ServerProcess(database: database, directory: directory)
        defer { again.killNow() }
        #expect(again.log().contains("the audit key file was readable or writable by others; made it private"), "\(again.log())")
        #expect(Self.mode(keyFile) == 0o600)
        #expect(try SubcommandTests.server(["audit", "verify", "--database", database]).status == 0)
        // A file named with --audit-key-file is the operator's: warned about, left as it is.
        let named = directory.appendingPathComponent("named.key").path
        try saved.write(to: URL(fileURLWithPath: named))
        #expect(chmod(named, 0o666) == 0)
        let listed = try SubcommandTests.server(["keys", "list", "--database", database, "--audit-key-file", named])
        #expect(listed.status == 0 && listed.stderr.contains("the audit key file is writable by others"), "\(listed.stderr)")
        #expect(Self.mode(named) == 0o666)
    }

    @Test("a key file and PERMISSION_AUDIT_KEY together are refused with 64 by every command that loads the key, naming both")
    func keyFileAndKeyTogetherAreRefused() throws {
        let directory = try Paths.makeTemporaryDirectory("audit-key-both")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("both.sqlite").path
        let keyFile = directory.appendingPathComponent("server.key").path
        try Data("\(ServerProcess.auditKey)\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        let missing = directory.appendingPathComponent("missing.key").path
        let config = directory.appendingPathComponent("permission.conf").path
        try Data("PERMISSION_AUDIT_KEY_FILE=\(keyFile)\n".utf8).write(to: URL(fileURLWithPath: config))
        let key = ["PERMISSION_AUDIT_KEY": ServerProcess.auditKey]
        for command in [
            ["serve", "--port", "0"], ["migrate"], ["keys", "list"], ["keys", "create", "--role", "admin", "--name", "x"],
            ["copy", "--from", database, "--to", "postgres://u@127.0.0.1:1/none"],
        ] {
            let location = command.first == "copy" ? [] : ["--database", database]
            for (file, source) in [(keyFile, "flag"), (missing, "flag")] {
                let refused = try SubcommandTests.server(command + location + ["--audit-key-file", file], environment: key)
                #expect(refused.status == 64, "\(command): \(refused.stderr)")
                #expect(
                    refused.stderr.contains(
                        "--audit-key-file / PERMISSION_AUDIT_KEY_FILE (from \(source)) and PERMISSION_AUDIT_KEY (from environment) are both set"
                    ), "\(command): \(refused.stderr)")
                #expect(!refused.stderr.contains(ServerProcess.auditKey), "the key is never shown")
            }
            let fromFile = try SubcommandTests.server(command + location + ["--config", config], environment: key)
            #expect(fromFile.status == 64, "\(command): \(fromFile.stderr)")
            #expect(fromFile.stderr.contains("PERMISSION_AUDIT_KEY_FILE (from file) and PERMISSION_AUDIT_KEY (from environment)"))
        }
        #expect(!FileManager.default.fileExists(atPath: database), "nothing was opened")
        // Either one alone still works.
        #expect(try SubcommandTests.server(["migrate", "--database", database, "--audit-key-file", keyFile]).status == 0)
        #expect(try SubcommandTests.server(["keys", "list", "--database", database], environment: key).status == 0)
    }

    @Test("on PostgreSQL the key must be given: without it serve and migrate refuse with exit 78 and say how")
    func postgresNeedsTheKey() throws {
        let postgres = try PostgresServer.shared.get()
        let (uri, _) = try CopyToPostgresTests.freshDatabase(postgres)
        let password = ["PGPASSWORD": postgres.password]
        for command in [["serve", "--port", "0"], ["migrate"]] {
            let refused = try SubcommandTests.server(command + ["--database", uri], environment: password)
            #expect(refused.status == 78, "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("--audit-key-file FILE or PERMISSION_AUDIT_KEY"), "\(refused.stderr)")
        }
        let migrated = try SubcommandTests.server(
            ["migrate", "--database", uri], environment: password.merging(["PERMISSION_AUDIT_KEY": ServerProcess.auditKey]) { $1 }
        )
        #expect(migrated.status == 0, "\(migrated.stderr)")
        // The chain is checked without any key.
        #expect(try SubcommandTests.server(["audit", "verify", "--database", uri], environment: password).status == 0)
    }

    @Test(
        "a wrong audit key is refused before any migration: the database stays as the previous version left it, on SQLite and PostgreSQL"
    )
    func wrongKeyMigratesNothing() throws {
        let directory = try Paths.makeTemporaryDirectory("audit-key-migrations")
        defer { Paths.removeTemporary(directory) }
        let other = directory.appendingPathComponent("other.key").path
        let otherKey = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        try Data("\(otherKey)\n".utf8).write(to: URL(fileURLWithPath: other))
        chmod(other, 0o600)
        // The schema as the version before the last migration left it.
        let undo =
            "ALTER TABLE apps DROP COLUMN development_language; DELETE FROM schema_migrations WHERE id = '%@';"

        let database = directory.appendingPathComponent("m.sqlite").path
        #expect(try SubcommandTests.server(["migrate", "--database", database]).status == 0)
        let older = try Subprocess.run(
            Paths.sqlite3, [database, undo.replacingOccurrences(of: "%@", with: "15-development-language")])
        #expect(older.status == 0, "\(older.stderr)")
        let appliedSQLite = { try CopyToPostgresTests.sqlite(database, "SELECT group_concat(id) FROM schema_migrations") }
        let before = try appliedSQLite()
        for command in [
            ["serve", "--port", "0"], ["migrate"], ["keys", "list"], ["audit", "rotate-key", "--new-key-file", other],
        ] {
            let refused = try SubcommandTests.server(command + ["--database", database, "--audit-key-file", other])
            #expect(refused.status == 78 && refused.stderr.contains("does not match"), "\(command): \(refused.stderr)")
            #expect(!refused.stderr.contains("applied a migration"), "\(command): \(refused.stderr)")
            #expect(try appliedSQLite() == before, "\(command) migrated the database")
        }
        let migrated = try SubcommandTests.server(["migrate", "--database", database])
        #expect(migrated.status == 0 && migrated.stdout.contains("applied 15-development-language"), "\(migrated.stdout)")

        let postgres = try PostgresServer.shared.get()
        let (uri, name) = try CopyToPostgresTests.freshDatabase(postgres)
        let password = ["PGPASSWORD": postgres.password]
        let right = password.merging(["PERMISSION_AUDIT_KEY": ServerProcess.auditKey]) { $1 }
        #expect(try SubcommandTests.server(["migrate", "--database", uri], environment: right).status == 0)
        _ = try CopyToPostgresTests.psql(postgres, name, undo.replacingOccurrences(of: "%@", with: "12-development-language"))
        let appliedPostgres = {
            try CopyToPostgresTests.psql(
                postgres, name, "SELECT string_agg(id, ',' ORDER BY applied_order) FROM schema_migrations")
        }
        let beforePostgres = try appliedPostgres()
        #expect(!beforePostgres.contains("12-development-language"), "\(beforePostgres)")
        for command in [["serve", "--port", "0", "--database-start-timeout", "0"], ["migrate"], ["keys", "list"]] {
            let refused = try SubcommandTests.server(
                command + ["--database", uri], environment: password.merging(["PERMISSION_AUDIT_KEY": otherKey]) { $1 })
            #expect(refused.status == 78 && refused.stderr.contains("does not match"), "\(command): \(refused.stderr)")
            #expect(try appliedPostgres() == beforePostgres, "\(command) migrated the database")
        }
        let migratedPostgres = try SubcommandTests.server(["migrate", "--database", uri], environment: right)
        #expect(migratedPostgres.status == 0 && migratedPostgres.stdout.contains("applied 12-development-language"))
    }
}
