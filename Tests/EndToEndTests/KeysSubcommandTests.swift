import Foundation
import LiveTestSupport
import PermissionWire
import TestProcesses
import TestThreads
import Testing

/// `permission-server keys create|list|revoke` on a database file, then the keys against a
/// live server (SPEC §6): the first admin key without the environment, rotation, app keys.
@Suite(.serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct KeysSubcommandTests {
    static func keys(_ arguments: [String], database: String) throws -> ProcessResult {
        try SubcommandTests.server(["keys"] + arguments + ["--database", database, "--log-level", "error"])
    }

    /// The `{"id", "secret"}` of `keys create --json`.
    static func create(_ arguments: [String], database: String) throws -> (id: String, secret: String) {
        let result = try keys(["create", "--json"] + arguments, database: database)
        guard result.status == 0, case .object(let object) = try StrictJSON.parse(Array(result.stdout.utf8)),
            case .string(let id)? = object["id"], case .string(let secret)? = object["secret"]
        else { throw ServerProcess.StartupError(description: "keys create: \(result.stdout) \(result.stderr)") }
        return (id, secret)
    }

    @Test("keys create on a path with no database says that it made a new one, and where; on the server's file it does not")
    func keysCreateSaysWhenItMadeANewDatabase() throws {
        let directory = try Paths.makeTemporaryDirectory("keys-new-database")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("k.sqlite").path
        let first = try SubcommandTests.server(["keys", "create", "--role", "admin", "--name", "a", "--database", database])
        #expect(first.status == 0, "\(first.stderr)")
        let warning = first.stderr.split(separator: "\n").filter { $0.contains("no database was at --database") }
        #expect(warning.count == 1 && warning[0].contains("warning") && warning[0].contains("database=\(database)"))
        #expect(warning.first?.contains("directory=/") == true, "\(first.stderr)")
        let second = try SubcommandTests.server(["keys", "create", "--role", "admin", "--name", "b", "--database", database])
        #expect(second.status == 0 && !second.stderr.contains("no database was"), "\(second.stderr)")
    }

    @Test("keys revoke refuses the last active admin key and an unknown key with 1, a bad role with 64, and changes nothing")
    func revokeRefusals() throws {
        let directory = try Paths.makeTemporaryDirectory("keys-revoke")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("k.sqlite").path
        let admin = try Self.create(["--role", "admin", "--name", "only"], database: database)
        let last = try Self.keys(["revoke", admin.id], database: database)
        #expect(last.status == 1 && last.stderr.contains("error: "), "\(last.status) \(last.stderr)")
        let unknown = try Self.keys(["revoke", "0123456789abcdef"], database: database)
        #expect(unknown.status == 1 && unknown.stderr.contains("error: "), "\(unknown.status) \(unknown.stderr)")
        let role = try Self.keys(["create", "--role", "owner", "--name", "x"], database: database)
        #expect(role.status == 64, "\(role.status) \(role.stderr)")
        let listed = try Self.keys(["list"], database: database)
        #expect(listed.stdout.split(separator: "\n") == ["\(admin.id) admin active name=only"], "\(listed.stdout)")
    }

    static func status(_ url: String, key: String?, method: String = "GET") throws -> String {
        var arguments = ["-o", "/dev/null", "-w", "%{http_code}", "-X", method]
        if let key { arguments += ["-H", "Authorization: Bearer \(key)"] }
        return try Subprocess.curl(arguments + [url]).stdout
    }

    @Test(
        "keys create and revoke exit 69 when another process holds the file's write lock past the busy timeout (worth retrying), 64 for a malformed key id; keys list reads meanwhile"
    )
    func writeLockHeldElsewhereIsUnavailable() throws {
        let directory = try Paths.makeTemporaryDirectory("keys-busy")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("k.sqlite").path
        let admin = try Self.create(["--role", "admin", "--name", "a"], database: database)
        let held = directory.appendingPathComponent("holder.out").path
        let holder = try ChildProcess(
            Paths.python,
            [
                "-c",
                """
                import sqlite3, sys, time
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute('BEGIN IMMEDIATE')
                print('holding', flush=True)
                time.sleep(60)
                """,
                database,
            ], standardOutput: held, standardError: held)
        defer { holder.killAndWait() }
        let deadline = Date().addingTimeInterval(10)
        while (try? String(contentsOfFile: held, encoding: .utf8))?.contains("holding") != true, Date() < deadline {
            usleep(20_000)
        }
        let listed = try Self.keys(["list"], database: database)
        #expect(listed.status == 0 && listed.stdout.contains(admin.id), "\(listed.stdout) \(listed.stderr)")
        let created = try Self.keys(["create", "--role", "auditor", "--name", "x"], database: database)
        #expect(created.status == 69, "\(created.stdout) \(created.stderr)")
        #expect(created.stderr.hasPrefix("error: temporarily unavailable: "), "\(created.stderr)")
        #expect(!created.stdout.contains("secret"), "\(created.stdout)")
        let revoked = try Self.keys(["revoke", admin.id], database: database)
        #expect(revoked.status == 69, "\(revoked.stdout) \(revoked.stderr)")
        holder.killAndWait()

        let malformed = try Self.keys(["revoke", "not a key id"], database: database)
        #expect(malformed.status == 64, "\(malformed.stderr)")
        let after = try Self.keys(["list"], database: database)
        #expect(after.stdout.split(separator: "\n").count == 1 && after.stdout.contains("\(admin.id) admin active"))
    }

    @Test("keys create on the file, then rotation and revocation against a live server")
    func createListRevokeOnTheFile() throws {
        let directory = try Paths.makeTemporaryDirectory("keys")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("keys.sqlite").path
        let first = try Self.create(["--role", "admin", "--name", "first"], database: database)
        #expect(first.secret.hasPrefix("pk_\(first.id)_"))
        // The human form ends with the secret as its last word.
        let human = try Self.keys(["create", "--role", "auditor", "--name", "audit"], database: database)
        #expect(human.status == 0)
        let auditorSecret = String(human.stdout.split(whereSeparator: \.isWhitespace).last ?? "")
        #expect(auditorSecret.hasPrefix("pk_"))
        #expect(try Self.keys(["create", "--role", "app", "--name", "x"], database: database).status == 64)
        let listed = try Self.keys(["list"], database: database)
        #expect(listed.stdout.contains(first.id) && !listed.stdout.contains("pk_"))

        let server = try ServerProcess(
            database: database, directory: directory, environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": ""])
        defer { server.killNow() }
        let apps = "\(server.baseURL)/v1/apps"
        #expect(try Self.status(apps, key: first.secret) == "200")
        #expect(try Self.status(apps, key: nil) == "401")
        #expect(try Self.status(apps, key: auditorSecret) == "403")
        #expect(try Self.status("\(server.baseURL)/v1/audit", key: auditorSecret) == "200")
        // Rotation through the API: a second admin key, then the first one revoked.
        let issued = try Subprocess.curl([
            "-H", "Authorization: Bearer \(first.secret)", "-H", "Content-Type: application/json",
            "--data", #"{"role": "admin", "name": "second"}"#, "\(server.baseURL)/v1/keys",
        ])
        let second = try WireDecoder.decodeResponse(IssuedAPIKey.self, from: Array(issued.stdout.utf8))
        #expect(try Self.status("\(server.baseURL)/v1/keys/\(first.id)", key: second.secret, method: "DELETE") == "204")
        #expect(try Self.status(apps, key: first.secret) == "401")
        #expect(try Self.status(apps, key: second.secret) == "200")
        #expect(try Self.status("\(server.baseURL)/v1/keys/\(second.key.id)", key: second.secret, method: "DELETE") == "409")
        #expect(!server.log().contains(second.secret) && !server.log().contains(first.secret))
    }

    @Test("PERMISSION_BOOTSTRAP_ADMIN_KEY creates the admin key at start, once; a bad one refuses to start")
    func bootstrapFromTheEnvironment() throws {
        let directory = try Paths.makeTemporaryDirectory("bootstrap")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("boot.sqlite").path
        let server = try ServerProcess(database: database, directory: directory)
        #expect(try Self.status("\(server.baseURL)/v1/keys", key: ServerProcess.adminKey) == "200")
        #expect(!server.log().contains(ServerProcess.adminKey))
        server.killNow()
        let listed = try Self.keys(["list"], database: database)
        #expect(listed.stdout.split(separator: "\n").filter { $0.contains("name=bootstrap") }.count == 1)
        let refused = try SubcommandTests.server(
            ["serve", "--port", "0", "--database", database], environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": "short"])
        #expect(refused.status == 64)
    }
}
