import Foundation
import LiveTestSupport
import Testing

/// Erasure as an operator relies on it (SPEC §11, §12): soon after `DELETE /v1/users/{user}`,
/// with the server still running, and after a clean stop, the user id is nowhere in the database
/// file, its WAL, or a backup taken afterwards, while the audit chain still verifies (the
/// server's own check and the independent script).
@Suite struct ErasureTests {
    static let user = "erase-me-7d1c9a4b"

    /// Whether any of `files` holds `text`'s bytes.
    static func found(_ text: String, in files: [String]) -> [String] {
        files.filter { file in
            guard let data = FileManager.default.contents(atPath: file) else { return false }
            return data.range(of: Data(text.utf8)) != nil
        }
    }

    @Test("after an erasure the user id is nowhere in the file or its WAL, while served and after a stop, nor in a later backup")
    func erasedUserLeavesNoTrace() throws {
        let directory = try Paths.makeTemporaryDirectory("erasure")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("erasure.sqlite").path
        let server = try ServerProcess(database: database, directory: directory, environment: OperationsTests.keyEnvironment)
        defer { server.killNow() }
        let base = server.baseURL
        func call(_ method: String, _ path: String, _ body: String? = nil) throws -> ProcessResult {
            var arguments = ["-s", "-X", method, "-w", "\n%{http_code}", base + path]
            if let body { arguments += ["-H", "Content-Type: application/json", "--data", body] }
            return try Subprocess.curl(["-H", "Authorization: Bearer \(OperationsTests.adminKey)"] + arguments)
        }
        #expect(try OperationsTests.putApp(server, "com.example.erase") == "201")
        let user = Self.user
        #expect(
            try call(
                "PUT", "/v1/users/\(user)/apps/com.example.erase/authorizations/camera",
                #"{"status": "authorized", "level": "full"}"#
            ).stdout.hasSuffix("200"))
        let asked = try call(
            "POST", "/v1/users/\(user)/apps/com.example.erase/authorizations/camera/request", #"{"level": "full"}"#)
        #expect(asked.stdout.split(separator: "\n").last?.hasPrefix("2") == true, "\(asked.stdout)")
        #expect(try call("PUT", "/v1/users/\(user)/settings", #"{"locationServicesEnabled": false}"#).stdout.hasSuffix("200"))
        #expect(try call("POST", "/v1/users/\(user)/consent-sessions").stdout.hasSuffix("201"))
        #expect(
            try call(
                "PUT", "/v1/users/other-user-1/apps/com.example.erase/authorizations/camera",
                #"{"status": "denied"}"#
            ).stdout.hasSuffix("200"))
        let files = [database, database + "-wal"]
        #expect(!Self.found(user, in: files).isEmpty, "before the erasure the records hold the user id")

        let erased = try call("DELETE", "/v1/users/\(user)")
        #expect(erased.stdout.hasSuffix("200") && erased.stdout.contains(#""pseudonym":"p_"#), "\(erased.stdout)")
        #expect(try call("DELETE", "/v1/users/\(user)").stdout.hasSuffix("404"), "nothing is left to erase")

        // While the server runs: the erasure empties the WAL, whose older frames held the
        // user's rows and wrapped key (the file's own pages are zeroed as rows are deleted).
        let deadline = Date().addingTimeInterval(10)
        while !Self.found(user, in: files).isEmpty, Date() < deadline { usleep(20_000) }
        #expect(Self.found(user, in: files).isEmpty, "still served: the user id remains in \(Self.found(user, in: files))")
        // Counted on the checkpointer's queue just after the log is emptied.
        var metrics = ""
        _ = try ReplicaTests.within(5) {
            metrics = try OperationsTests.get("\(base)/metrics").body
            return OperationsTests.sample(metrics, #"sqlite_wal_scrubs_total{outcome="emptied"}"#) == 1
        }
        #expect(OperationsTests.sample(metrics, #"sqlite_wal_scrubs_total{outcome="emptied"}"#) == 1, "\(metrics)")
        #expect(OperationsTests.sample(metrics, "sqlite_wal_scrub_waiting_seconds") == 0, "\(metrics)")
        #expect(try call("GET", "/v1/users/other-user-1/apps/com.example.erase/authorizations/camera").stdout.hasSuffix("200"))

        // A clean stop checkpoints the WAL into the file; a backup taken afterwards copies it.
        server.send(SIGTERM)
        #expect(server.waitForExit(timeout: 20) == 0)
        let backup = directory.appendingPathComponent("after.sqlite").path
        let backedUp = try SubcommandTests.server(["backup", "--to", backup, "--database", database])
        #expect(backedUp.status == 0, "\(backedUp.stderr)")
        let everything = files + [backup, backup + "-wal"]
        #expect(Self.found(user, in: everything).isEmpty, "the user id remains in \(Self.found(user, in: everything))")
        #expect(!Self.found("other-user-1", in: [database]).isEmpty, "the other user's record is still there")

        let verified = try SubcommandTests.server(["audit", "verify", "--database", backup])
        #expect(verified.status == 0 && verified.stdout.hasPrefix("audit chain intact:"), "\(verified.stdout) \(verified.stderr)")
        let script = Paths.repositoryRoot.appendingPathComponent("scripts/verify-audit-chain.py").path
        let independent = try Subprocess.run("/usr/bin/python3", [script, database])
        #expect(independent.status == 0 && independent.stdout.hasPrefix("intact:"), "\(independent.stdout) \(independent.stderr)")
    }

    /// A process killed between an erasure's commit and the scrub that empties the WAL leaves the
    /// erased rows' older frames in it, and the erasure cannot be asked for again (the user is
    /// gone: 404). `serve` empties such a log before it serves. The leftover is made here as such
    /// a kill leaves it: rows written and deleted (`secure_delete`) in commits still in the WAL,
    /// by a process that exits without closing the database.
    @Test("a WAL a killed process left with deleted rows in it is emptied when the server starts")
    func leftoverLogIsEmptiedAtStart() throws {
        let directory = try Paths.makeTemporaryDirectory("erasure-leftover")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("leftover.sqlite").path
        let first = try ServerProcess(database: database, directory: directory, environment: OperationsTests.keyEnvironment)
        #expect(try OperationsTests.putApp(first, "com.example.kept") == "201")
        first.send(SIGTERM)
        #expect(first.waitForExit(timeout: 20) == 0, "\(first.log())")

        let marker = "leftover-\(Self.user)"
        let killed = try Subprocess.python(
            """
            import os, sqlite3, sys
            database = sqlite3.connect(sys.argv[1], isolation_level=None)
            database.execute("PRAGMA secure_delete = ON")
            database.execute("CREATE TABLE leftover (x TEXT)")
            database.execute("INSERT INTO leftover VALUES (?)", (sys.argv[2] * 20,))
            database.execute("DELETE FROM leftover")
            database.execute("DROP TABLE leftover")
            os._exit(0)  # no close: the WAL stays, as a kill leaves it
            """, [database, marker])
        #expect(killed.status == 0, "\(killed.stderr)")
        let files = [database, database + "-wal"]
        #expect(Self.found(marker, in: files) == [database + "-wal"], "the deleted rows are in the WAL only")

        let server = try ServerProcess(database: database, directory: directory, environment: OperationsTests.keyEnvironment)
        defer { server.killNow() }
        #expect(Self.found(marker, in: files).isEmpty, "still in \(Self.found(marker, in: files)): \(server.log())")
        let log = try FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? Int
        #expect(log == 0, "the WAL is emptied before the server listens")
        #expect(try OperationsTests.putApp(server, "com.example.after") == "201")
        #expect(try OperationsTests.sqlite(database, "SELECT count(*) FROM apps") == "2")
    }
}
