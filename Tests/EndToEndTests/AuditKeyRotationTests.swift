import Foundation
import LiveTestSupport
import PostgresTestServer
import Testing

/// `permission-server audit rotate-key` as an operator runs it (docs/audit-chain.md, "Rotating
/// the server key"): refused while a server serves the SQLite file; then every user's key
/// wrapped under the new server key, the log still verifying and still readable with the new
/// key only; on PostgreSQL, a replica left running on the old key refuses to make a new user's
/// key rather than make it under the old one.
@Suite struct AuditKeyRotationTests {
    /// A key file holding `byte` 32 times, in base64.
    static func keyFile(_ directory: URL, _ name: String, byte: UInt8) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data("\(Data(repeating: byte, count: 32).base64EncodedString())\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o600) == 0)
        return path
    }

    /// Calls the API of `server` as admin; returns the status and the body.
    static func call(
        _ server: ServerProcess, _ method: String, _ path: String, _ body: String? = nil
    ) throws -> (status: Int, body: String) {
        var arguments = ["-s", "-X", method, "-w", "\n%{http_code}", "\(server.baseURL)\(path)"]
        if let body { arguments += ["-H", "Content-Type: application/json", "--data", body] }
        let result = try Subprocess.adminCurl(arguments)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// Registers an app with a camera purpose string and grants `users` the camera.
    static func grantCamera(_ server: ServerProcess, to users: [String]) throws {
        let app = try call(
            server, "PUT", "/v1/apps/com.example.scan",
            #"{"name": "Scan", "purposeStrings": {"NSCameraUsageDescription": "Scans receipts."}}"#)
        #expect(app.status == 200 || app.status == 201, "\(app)")
        for user in users {
            let granted = try call(
                server, "PUT", "/v1/users/\(user)/apps/com.example.scan/authorizations/camera",
                #"{"status": "authorized", "level": "full"}"#)
            #expect(granted.status == 200, "\(user): \(granted)")
        }
    }

    @Test("SQLite: refused while served; then rotated, verified, readable with the new key only, and not twice to one key")
    func rotatingTheKeyOfASQLiteDatabase() throws {
        let directory = try Paths.makeTemporaryDirectory("rotate-key")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("rotate.sqlite").path
        let newKey = try Self.keyFile(directory, "new.key", byte: 7)
        let served = try ServerProcess(database: database, directory: directory)
        defer { served.killNow() }
        try Self.grantCamera(served, to: ["u1", "u2", "u3"])
        #expect(try Self.call(served, "DELETE", "/v1/users/u3").status == 200)

        let whileServed = try SubcommandTests.server(
            ["audit", "rotate-key", "--database", database, "--new-key-file", newKey])
        #expect(whileServed.status == 69, "\(whileServed.stderr)")
        #expect(whileServed.stderr.contains("already serving"), "\(whileServed.stderr)")
        served.send(SIGTERM)
        #expect(served.waitForExit(timeout: 20) == 0)

        let rotated = try SubcommandTests.server(["audit", "rotate-key", "--database", database, "--new-key-file", newKey])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stdout.contains("2 users' keys wrapped under \(newKey)"), "u3's key was erased: \(rotated.stdout)")
        #expect(!rotated.stderr.contains(Data(repeating: 7, count: 32).base64EncodedString()), "the key is never logged")
        let verified = try SubcommandTests.server(["audit", "verify", "--database", database])
        #expect(verified.status == 0 && verified.stdout.contains("audit chain intact"), "\(verified.stdout)")

        // The old key (the file beside the database) no longer opens it; the new one does.
        let old = try SubcommandTests.server(["keys", "list", "--database", database])
        #expect(old.status == 78 && old.stderr.contains("does not match"), "\(old.stderr)")
        let again = try ServerProcess(database: database, directory: directory, extraArguments: ["--audit-key-file", newKey])
        defer { again.killNow() }
        // An entry's `user` is a personal field, stored sealed under the user's key: read back, it
        // proves the key opens.
        let audit = try Self.call(again, "GET", "/v1/audit?user=u1")
        #expect(audit.status == 200 && audit.body.contains(#""user":"u1""#), "\(audit)")
        let all = try Self.call(again, "GET", "/v1/audit?action=audit.key.rotated")
        #expect(all.body.contains(#""subjects":"2""#) && all.body.contains(#""role":"system""#), "\(all)")
        try Self.grantCamera(again, to: ["u4"])  // a new user's key, under the new server key
        again.send(SIGTERM)
        #expect(again.waitForExit(timeout: 20) == 0)
        let restarted = try ServerProcess(database: database, directory: directory, extraArguments: ["--audit-key-file", newKey])
        defer { restarted.killNow() }
        let fourth = try Self.call(restarted, "GET", "/v1/audit?user=u4")
        #expect(fourth.status == 200 && fourth.body.contains(#""user":"u4""#), "\(fourth)")
        restarted.send(SIGTERM)
        #expect(restarted.waitForExit(timeout: 20) == 0)

        // To the key in use, or to a malformed one: 78, nothing changed.
        let same = try SubcommandTests.server(
            ["audit", "rotate-key", "--database", database, "--audit-key-file", newKey, "--new-key-file", newKey])
        #expect(same.status == 78 && same.stderr.contains("already"), "\(same.stderr)")
        let malformed = directory.appendingPathComponent("short.key").path
        try Data("c2hvcnQ=\n".utf8).write(to: URL(fileURLWithPath: malformed))
        let bad = try SubcommandTests.server(
            ["audit", "rotate-key", "--database", database, "--audit-key-file", newKey, "--new-key-file", malformed])
        #expect(bad.status == 78 && bad.stderr.contains("32 random bytes"), "\(bad.stderr)")
        let missing = try SubcommandTests.server(
            ["audit", "rotate-key", "--database", database + ".none", "--new-key-file", newKey])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(try SubcommandTests.server(["audit", "verify", "--database", database]).status == 0)
    }

    @Test(
        "PostgreSQL: refused while a replica is connected; rotated under a replica left unseen on the old key, which then refuses a new user's key, reads of the log and exports (503); a replica on the new key reads and writes"
    )
    func rotatingTheKeyOfAPostgresDatabase() throws {
        let postgres = try PostgresServer.shared.get()
        let (uri, _) = try CopyToPostgresTests.freshDatabase(postgres)
        let directory = try Paths.makeTemporaryDirectory("rotate-key-pg")
        defer { Paths.removeTemporary(directory) }
        let oldKey = try Self.keyFile(directory, "old.key", byte: 1)
        let newKey = try Self.keyFile(directory, "new.key", byte: 2)
        let password = ["PGPASSWORD": postgres.password]
        let rotate = ["audit", "rotate-key", "--database", uri, "--audit-key-file", oldKey, "--new-key-file", newKey]

        // A replica connected as the server's connections name themselves: refused, nothing changed.
        let seen = try ServerProcess(
            database: uri, directory: directory, extraArguments: ["--audit-key-file", oldKey], environment: password)
        defer { seen.killNow() }
        let refusedWhileServed = try SubcommandTests.server(rotate, environment: password)
        #expect(refusedWhileServed.status == 69, "\(refusedWhileServed.stderr)")
        #expect(refusedWhileServed.stderr.contains("stop every replica first"), "\(refusedWhileServed.stderr)")
        try Self.grantCamera(seen, to: ["u1"])  // still on the old key: nothing was rotated
        seen.send(SIGTERM)
        #expect(seen.waitForExit(timeout: 20) == 0)

        // One whose connection string names itself otherwise is not seen (docs/audit-chain.md).
        let stale = try ServerProcess(
            database: uri + (uri.contains("?") ? "&" : "?") + "application_name=unseen", directory: directory,
            extraArguments: ["--audit-key-file", oldKey], environment: password)
        defer { stale.killNow() }
        try Self.grantCamera(stale, to: ["u2"])

        let rotated = try SubcommandTests.server(
            ["audit", "rotate-key", "--database", uri, "--audit-key-file", oldKey, "--new-key-file", newKey],
            environment: password)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stdout.contains("2 users' keys wrapped"), "\(rotated.stdout)")

        let refused = try Self.call(
            stale, "PUT", "/v1/users/u9/apps/com.example.scan/authorizations/camera", #"{"status": "denied"}"#)
        #expect(refused.status == 503 && refused.body.contains("audit server key was replaced"), "\(refused)")
        #expect(try Self.call(stale, "GET", "/readyz").status == 503, "out of the load balancer's rotation")
        // Its reads of the log and its exports say the same, before anything is sent: no
        // user's key opens under its key any more.
        for path in ["/v1/audit?limit=10", "/v1/audit?user=u1", "/v1/users/u1/export"] {
            let read = try Self.call(stale, "GET", path)
            #expect(read.status == 503 && read.body.contains("audit server key was replaced"), "\(path): \(read)")
        }
        stale.send(SIGTERM)
        _ = stale.waitForExit(timeout: 20)

        let current = try ServerProcess(
            database: uri, directory: directory, extraArguments: ["--audit-key-file", newKey], environment: password)
        defer { current.killNow() }
        #expect(try Self.call(current, "GET", "/readyz").status == 200)
        let audit = try Self.call(current, "GET", "/v1/audit?user=u2")
        #expect(audit.status == 200 && audit.body.contains(#""user":"u2""#), "\(audit)")
        #expect(
            try Self.call(current, "GET", "/v1/users/u9/apps/com.example.scan/authorizations/camera").body.contains(
                "notDetermined"))
        try Self.grantCamera(current, to: ["u9"])
        #expect(try Self.call(current, "GET", "/v1/audit?user=u9").body.contains(#""user":"u9""#))
        let verified = try SubcommandTests.server(["audit", "verify", "--database", uri], environment: password)
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        let old = try SubcommandTests.server(
            ["migrate", "--database", uri, "--audit-key-file", oldKey], environment: password)
        #expect(old.status == 78 && old.stderr.contains("does not match"), "\(old.stderr)")
    }
}
