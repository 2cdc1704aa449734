import Foundation
import LiveTestSupport
import PermissionClient
import PermissionWire
import TestProcesses
import TestThreads
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `permctl` binary, run as a subprocess for every verb against the real server, and
/// its exit codes: 0, 64 usage, 69 unavailable, 77 denied, 1 other HTTP errors.
@Suite("permctl", .serialized, .timeLimit(.minutes(3)), .startsProcesses)
struct PermctlTests {
    static let verbs = [
        "status", "request", "button", "prompts", "decide", "lifecycle", "set", "revoke", "reset", "apps", "services",
        "policies", "audit", "keys", "users",
    ]

    @Test func everyVerbAgainstTheRealServer() throws {
        let server = try LiveServer()
        defer { server.stop() }
        func run(_ arguments: String...) throws -> Permctl.Result {
            try Permctl.run(arguments, url: server.url, key: server.adminKey)
        }
        let services = try run("services")
        #expect(services.status == 0 && services.stdout.contains("location") && services.stdout.contains("whenInUse,always"))
        #expect(try run("services", "camera", "--json").stdout.contains(#""id":"camera""#))
        let registered = try run(
            "apps", "register", "com.example.maps", "--name", "Maps", "--development-language", "en-gb",
            "--purpose", "NSLocationWhenInUseUsageDescription=Shows nearby stops.")
        #expect(registered.status == 0, "\(registered.stderr)")
        #expect(try run("apps").stdout.contains("com.example.maps"))
        let shown = try run("apps", "get", "com.example.maps").stdout
        #expect(shown.contains("Shows nearby stops.") && shown.contains("en-GB"), "\(shown)")

        let requested = try run("request", "u42", "com.example.maps", "location", "--level", "whenInUse", "--json")
        #expect(requested.status == 0, "\(requested.stderr)")
        let outcome = try WireDecoder.decodeResponse(RequestOutcome.self, from: Array(requested.stdout.utf8))
        let prompt = try #require(outcome.prompt)
        let prompts = try run("prompts", "u42")
        #expect(prompts.status == 0 && prompts.stdout.contains(prompt.id) && prompts.stdout.contains("allowWhileUsing"))
        let decided = try run("decide", prompt.id, "allowWhileUsing")
        #expect(decided.status == 0 && decided.stdout.contains("authorized (whenInUse)"))
        let status = try run("status", "u42", "com.example.maps", "location", "--json")
        let authorization = try WireDecoder.decodeResponse(Authorization.self, from: Array(status.stdout.utf8))
        #expect(authorization.status == .authorized && authorization.level == "whenInUse")
        // The JSON carries the entity-tag last, for a read-then-write with --if-match.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let etag = try #require(object["etag"] as? String)
        let quoted = String(decoding: try JSONEncoder().encode(etag), as: UTF8.self)
        #expect(etag.hasPrefix("\"") && status.stdout.hasSuffix("\"etag\":\(quoted)}\n"))
        let stale = try run("set", "u42", "com.example.maps", "location", "denied", "--if-match", "\"0-0\"")
        #expect(stale.status != 0, "\(stale.stdout)")
        let matched = try run(
            "set", "u42", "com.example.maps", "location", "authorized", "--level", "whenInUse", "--if-match", etag)
        #expect(matched.status == 0, "\(matched.stdout) \(matched.stderr)")
        let set = try run("set", "u42", "com.example.maps", "location", "denied")
        #expect(set.status == 0 && set.stdout.contains("denied"))
        // set and revoke carry the new entity-tag in their JSON too, for the next --if-match.
        for verb in ["set", "revoke"] {
            let arguments =
                verb == "set"
                ? ["set", "u42", "com.example.maps", "location", "denied"] : ["revoke", "u42", "com.example.maps", "location"]
            let answer = try Permctl.run(arguments + ["--json"], url: server.url, key: server.adminKey)
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any])
            #expect((fields["etag"] as? String)?.hasPrefix("\"") == true, "\(verb): \(answer.stdout)")
        }
        let revoked = try run("revoke", "u42", "com.example.maps", "location")
        #expect(revoked.status == 0 && revoked.stdout.contains("userSet"))
        let reset = try run("reset", "location", "--app", "com.example.maps", "--user", "u42")
        #expect(reset.status == 0 && reset.stdout.hasPrefix("Reset 1 authorization"), "\(reset.stdout)\(reset.stderr)")

        #expect(try run("policies", "put", "no-cam", "--service", "camera", "--effect", "restrict", "--user", "u42").status == 0)
        #expect(try run("policies").stdout.contains("no-cam"))
        #expect(try run("policies", "get", "no-cam").stdout.contains("restrict"))
        #expect(try run("policies", "delete", "no-cam").status == 0)
        #expect(try run("policies", "get", "no-cam").status == 1)

        let audit = try run("audit", "--user", "u42", "--service", "location")
        #expect(audit.status == 0 && audit.stdout.contains("prompt.answered") && audit.stdout.contains("authorization."))
        #expect(!audit.stdout.contains("(more:"), "the whole log fits")
        // A page that stops short says how to go on, in every listing that pages.
        let firstPage = try run("audit", "--user", "u42", "--limit", "1")
        let more = try #require(firstPage.stdout.split(separator: "\n").last, "\(firstPage.stdout)")
        #expect(more.hasPrefix("(more: --after "), "\(firstPage.stdout)")
        let seq = String(more.dropFirst("(more: --after ".count).dropLast())
        #expect(try run("audit", "--user", "u42", "--limit", "1", "--after", seq).stdout.contains(" prompt.answered"))
        _ = try run("request", "u42", "com.example.maps", "location", "--level", "whenInUse")
        let promptPage = try run("prompts", "u42", "--state", "all", "--limit", "1")
        let promptCursor = try #require(
            promptPage.stdout.split(separator: "\n").last.map { String($0.dropFirst("(more: --after ".count).dropLast()) })
        #expect(promptPage.stdout.contains(prompt.id) && promptCursor == prompt.id, "\(promptPage.stdout)")
        let nextPrompts = try run("prompts", "u42", "--state", "all", "--after", promptCursor)
        #expect(nextPrompts.status == 0 && !nextPrompts.stdout.contains(prompt.id) && !nextPrompts.stdout.contains("(more:"))
        let created = try run("keys", "create", "--role", "consent", "--name", "consent-ui")
        #expect(created.status == 0 && created.stdout.contains("secret: "), "\(created.stderr)")
        let keys = try run("keys")
        #expect(keys.status == 0 && keys.stdout.contains("consent-ui") && keys.stdout.contains("bootstrap"), "\(keys.stdout)")
        let keyID = try #require(
            keys.stdout.split(separator: "\n").first { $0.contains("consent-ui") }?.split(separator: " ").first)
        #expect(try run("keys", "delete", String(keyID)).status == 0)
        #expect(try run("keys").stdout.contains("consent-ui") == false)
    }

    /// A grant made under a translated purpose string shows its language once.
    @Test func statusShowsThePurposeLanguageOnce() throws {
        let server = try LiveServer()
        defer { server.stop() }
        func run(_ arguments: String...) throws -> Permctl.Result {
            try Permctl.run(arguments, url: server.url, key: server.adminKey)
        }
        #expect(
            try run(
                "apps", "register", "com.example.cam", "--name", "Cam", "--purpose", "NSCameraUsageDescription=Scan.",
                "--localized", "de:NSCameraUsageDescription=Scannen."
            ).status == 0)
        let client = try PermissionClient(configuration: .init(baseURL: server.url, apiKey: server.adminKey))
        _ = try client.sendBlocking(Endpoints.setSettings(user: "u5", UserSettings(locationServicesEnabled: true, locale: "de")))
        let requested = try run("request", "u5", "com.example.cam", "camera", "--level", "full", "--json")
        let prompt = try #require(try WireDecoder.decodeResponse(RequestOutcome.self, from: Array(requested.stdout.utf8)).prompt)
        #expect(try run("decide", prompt.id, "allow").status == 0)
        let status = try run("status", "u5", "com.example.cam", "camera")
        #expect(status.stdout.components(separatedBy: "purpose language").count == 2, "\(status.stdout)")
        #expect(status.stdout.contains("Scannen."), "\(status.stdout)")
    }

    /// Registers `com.example.cam` on `server` and starts `permctl audit --app com.example.cam
    /// --follow` against it.
    private static func followCam(_ server: LiveServer) throws -> Permctl.Running {
        #expect(
            try Permctl.run(
                ["apps", "register", "com.example.cam", "--name", "Cam", "--purpose", "NSCameraUsageDescription=Scan."],
                url: server.url, key: server.adminKey
            ).status == 0)
        return try Permctl.start(["audit", "--app", "com.example.cam", "--follow"], url: server.url, key: server.adminKey)
    }

    @Test func auditFollowPrintsNewChangesFromTheFeed() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let follower = try Self.followCam(server)
        usleep(300_000)
        #expect(
            try Permctl.run(["revoke", "u7", "com.example.cam", "camera"], url: server.url, key: server.adminKey).status == 0)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !follower.stdoutSoFar.contains("authorization.revoked") { usleep(50_000) }
        #expect(follower.stdoutSoFar.contains("authorization.revoked"))
        #expect(follower.process.isRunning)
    }

    /// An app key may follow its app's feed (SPEC §6) but not list the audit log: `audit --follow`
    /// with one prints no page and follows the feed from the log's start, its own app's entries
    /// only; without
    /// `--follow` the listing is refused as before (77).
    @Test func auditFollowWithAnAppKeyFollowsItsFeed() throws {
        let server = try LiveServer()
        defer { server.stop() }
        for app in ["com.example.cam", "com.example.other"] {
            #expect(
                try Permctl.run(
                    ["apps", "register", app, "--name", "App", "--purpose", "NSCameraUsageDescription=Scan."],
                    url: server.url, key: server.adminKey
                ).status == 0)
        }
        let created = try Permctl.run(
            ["--json", "keys", "create", "--role", "app", "--app", "com.example.cam", "--name", "cam"], url: server.url,
            key: server.adminKey)
        let key = try WireDecoder.decodeResponse(IssuedAPIKey.self, from: Array(created.stdout.utf8)).secret
        #expect(try Permctl.run(["audit"], url: server.url, key: key).status == 77, "the log is not the app's to list")

        let follower = try Permctl.start(["audit", "--follow"], url: server.url, key: key)
        usleep(300_000)
        for app in ["com.example.other", "com.example.cam"] {
            #expect(try Permctl.run(["revoke", "u7", app, "camera"], url: server.url, key: server.adminKey).status == 0)
        }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !follower.stdoutSoFar.contains("authorization.revoked") { usleep(50_000) }
        #expect(follower.stdoutSoFar.contains("authorization.revoked"), "\(follower.stdoutSoFar) \(follower.stderrSoFar)")
        #expect(follower.stdoutSoFar.contains("app.put"), "from the log's start: \(follower.stdoutSoFar)")
        #expect(!follower.stdoutSoFar.contains("com.example.other"), "another app's entry: \(follower.stdoutSoFar)")
        #expect(follower.process.isRunning, "\(follower.stderrSoFar)")
    }

    /// `audit --follow` outlives a restart of the server: refused connections while it is down
    /// are retried (`Configuration.eventsRetry`, about one to two minutes of them), and the feed
    /// resumes after the last entry printed once the server is back on its port.
    @Test func auditFollowRidesOutARestartOfTheServer() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let follower = try Self.followCam(server)
        #expect(
            try Permctl.run(["revoke", "u7", "com.example.cam", "camera"], url: server.url, key: server.adminKey).status == 0)
        var deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !follower.stdoutSoFar.contains("u7") { usleep(50_000) }
        #expect(follower.stdoutSoFar.contains("u7"))

        server.server.send(SIGTERM)
        #expect(server.server.waitForExit(timeout: 20) == 0)
        usleep(2_000_000)  // down for longer than three quick attempts take
        #expect(follower.process.isRunning, "the feed gave up while the server was down: \(follower.stderrSoFar)")
        let restarted = try ServerProcess(
            database: server.directory.appendingPathComponent("db.sqlite").path, directory: server.directory,
            extraArguments: ["--port", String(server.port)],
            environment: ["PERMISSION_BOOTSTRAP_ADMIN_KEY": server.adminKey])
        defer { restarted.killNow() }
        #expect(restarted.port == server.port)
        #expect(
            try Permctl.run(["revoke", "u8", "com.example.cam", "camera"], url: server.url, key: server.adminKey).status == 0)
        deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !follower.stdoutSoFar.contains("u8") { usleep(50_000) }
        #expect(follower.stdoutSoFar.contains("u8"), "\(follower.stdoutSoFar) \(follower.stderrSoFar)")
        #expect(follower.stdoutSoFar.components(separatedBy: "u7").count == 2, "nothing printed twice")
        #expect(follower.process.isRunning)
    }

    /// Output that cannot be written is exit 73 (EX_CANTCREAT) with a line on standard error,
    /// never 0 (a key's secret printed into a full disk is lost) nor a SIGPIPE death (141): a
    /// full device for a key's creation and for `audit --follow`, a reader that went away for
    /// an export.
    @Test func outputThatCannotBeWrittenIsExit73() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let script = """
            "$PERMCTL" --json keys create --role auditor --name lost > /dev/full; echo "keys=$?"
            "$PERMCTL" audit --follow > /dev/full; echo "follow=$?"
            # The reader is gone before the export writes: true never reads, and has ended.
            (sleep 1; "$PERMCTL" users export u1; echo "export=$?" >&2) | true
            # Its error message too: a write error on standard error is no crash.
            { (sleep 1; "$PERMCTL" --url http://127.0.0.1:1 services 2>&1; echo "stderr-gone=$?" >&3) | true; } 3>&2
            """
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PERMISSION_") }
        environment["PERMISSION_URL"] = server.url
        environment["PERMISSION_KEY"] = server.adminKey
        environment["PERMCTL"] = LiveServer.binary("permctl")
        let done = try ChildProcess.run("/bin/bash", ["-c", script], environment: environment, timeout: 60)
        #expect(done.standardOutput == "keys=73\nfollow=73\n", "\(done.standardOutput) \(done.standardError)")
        #expect(done.standardError.contains("export=73"), "\(done.standardError)")
        #expect(done.standardError.contains("stderr-gone=69"), "\(done.standardError)")
        #expect(done.standardError.contains("permctl: cannot write the standard output: No space left on device"))
        #expect(done.standardError.contains("Broken pipe"), "\(done.standardError)")
    }

    /// `audit --follow --idle-timeout 1`: a feed that goes silent after its head is dropped
    /// after a second and followed again; `--idle-timeout` without `--follow` is a usage error.
    @Test func auditFollowReconnectsAfterASilentFeed() throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n: connected\n\n"
        let entry =
            #"{"action":"authorization.revoked","actor":{"role":"admin"},"at":"2026-11-22T10:00:00.000Z","seq":9,"user":"u42"}"#
        let server = try ScriptedServer { request, index in
            if request.target.hasPrefix("/v1/audit") { return .json(200, #"{"items":[]}"#) }
            if index == 1 { return .rawThenSilence(head) }
            return .respond(
                status: 200, headers: [("Content-Type", "text/event-stream")], body: "id: 9\nevent: audit\ndata: \(entry)\n\n")
        }
        defer { server.stop() }
        let follower = try Permctl.start(
            ["audit", "--follow", "--idle-timeout", "1", "--json"], url: server.url, key: "k1")
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, !follower.stdoutSoFar.contains(#""seq":9"#) { usleep(50_000) }
        #expect(follower.stdoutSoFar.contains(#""seq":9"#), "\(follower.stdoutSoFar)")
        // The second feed ends after its entry, and is asked for again: a third may have come.
        let events = server.requests.filter { $0.target.hasPrefix("/v1/events") }
        #expect(events.count >= 2)
        if events.count >= 2 { #expect(events[1].at - events[0].at >= .milliseconds(950)) }

        let misplaced = try Permctl.run(["audit", "--idle-timeout", "5"], url: server.url, key: "k1")
        #expect(misplaced.status == 64, "\(misplaced.stderr)")
        let tooShort = try Permctl.run(["audit", "--follow", "--idle-timeout", "0.5"], url: server.url, key: "k1")
        #expect(tooShort.status == 64, "\(tooShort.stderr)")
    }

    /// A location alert (server intervals of one second): `lifecycle --used-at` reports a dated
    /// background use, `prompts` lists the alert with its kind and count, `decide` answers it.
    @Test func lifecycleReportsABackgroundUseAndTheLocationAlertIsListedAndAnswered() throws {
        let server = try LiveServer(environment: ["PERMISSION_LOCATION_ALERT_INTERVALS": "1s"])
        defer { server.stop() }
        func run(_ arguments: String...) throws -> Permctl.Result {
            try Permctl.run(arguments, url: server.url, key: server.adminKey)
        }
        let app = "com.example.maps"
        let registered = try run(
            "apps", "register", app, "--name", "Maps", "--purpose", "NSLocationWhenInUseUsageDescription=Shows nearby stops.",
            "--purpose", "NSLocationAlwaysAndWhenInUseUsageDescription=Alerts you near your stop.",
            "--purpose", "NSCameraUsageDescription=Scans tickets.")
        #expect(registered.status == 0, "\(registered.stderr)")
        #expect(try run("set", "u42", app, "location", "authorized", "--level", "always").status == 0)
        let hourAgo = Timestamp.format(Date().addingTimeInterval(-3_600))
        let used = try run("lifecycle", "u42", app, "backgroundLocationUsed", "--used-at", hourAgo)
        #expect(used.status == 0, "\(used.stderr)")
        #expect(
            used.stdout.contains("Changed no authorization.") && used.stdout.contains("Background use recorded"), "\(used.stdout)"
        )
        let json = try run("lifecycle", "u43", app, "backgroundLocationUsed", "--json")
        let notKept = try WireDecoder.decodeResponse(LifecycleResult.self, from: Array(json.stdout.utf8))
        #expect(notKept.usageRecorded == false, "u43 holds no Always grant")
        let old = try run(
            "lifecycle", "u42", app, "backgroundLocationUsed", "--used-at",
            Timestamp.format(Date().addingTimeInterval(-4 * 86_400)))
        #expect(old.status == 1 && old.stderr.contains("usedAt"), "\(old.stderr)")
        #expect(try run("lifecycle", "u42", app, "sessionEnded", "--used-at", hourAgo).status == 64)
        #expect(try run("lifecycle", "u42", app, "backgroundLocationUsed", "--used-at", "yesterday").status == 64)
        #expect(try run("lifecycle", "u42", app, "crashed").status == 64)

        let request = try run("request", "u42", app, "camera", "--level", "full")
        #expect(request.status == 0, "\(request.stderr)")
        var listed = try run("prompts", "u42")
        let deadline = Date().addingTimeInterval(15)
        while !listed.stdout.contains("locationAlert"), Date() < deadline {
            usleep(100_000)
            listed = try run("prompts", "u42")
        }
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.split(separator: " ", omittingEmptySubsequences: true) == [
                "ID", "USER", "APP", "SERVICE", "KIND", "LEVEL", "STATE", "OPTIONS", "EXPIRES",
            ], "\(listed.stdout)")
        let alertRow = try #require(lines.first { $0.contains("locationAlert") }, "\(listed.stdout)")
        #expect(
            alertRow.split(separator: " ", omittingEmptySubsequences: true)[3...7].map(String.init) == [
                "location", "locationAlert(backgroundUses=1)", "always", "pending", "keepAlways,changeToWhileUsing",
            ], "\(alertRow)")
        let requestRow = try #require(lines.first { $0.contains("camera") })
        #expect(
            requestRow.split(separator: " ", omittingEmptySubsequences: true)[3...7].map(String.init) == [
                "camera", "request", "full", "pending", "allow,deny",
            ], "other prompts as before: \(requestRow)")

        let list = try WireDecoder.decodeResponse(PromptList.self, from: Array(try run("prompts", "u42", "--json").stdout.utf8))
        let alert = try #require(list.items.first { $0.kind == .locationAlert })
        #expect(alert.backgroundUses == 1)
        let kept = try run("decide", alert.id, "keepAlways")
        #expect(
            kept.status == 0 && kept.stdout.contains("authorized (always)") && kept.stdout.contains("userSet"), "\(kept.stdout)")
        #expect(try run("prompts", "u42", "--state", "answered").stdout.contains("locationAlert(backgroundUses=1)"))
        // The next alert comes after the next use; this one is changed to While Using.
        #expect(try run("lifecycle", "u42", app, "backgroundLocationUsed").status == 0)
        var next: Prompt?
        while next == nil, Date() < deadline.addingTimeInterval(15) {
            let pending = try WireDecoder.decodeResponse(
                PromptList.self, from: Array(try run("prompts", "u42", "--json").stdout.utf8))
            next = pending.items.first { $0.kind == .locationAlert }
            if next == nil { usleep(100_000) }
        }
        let second = try #require(next, "a second alert after a new use")
        let changed = try run("decide", second.id, "changeToWhileUsing")
        #expect(
            changed.status == 0 && changed.stdout.contains("authorized (whenInUse)") && changed.stdout.contains("userConsent"),
            "\(changed.stdout)")
    }

    @Test func exitCodes() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let admin = server.adminKey
        // 64: usage errors, before any request.
        #expect(try Permctl.run(["status", "u42"], url: server.url, key: admin).status == 64)
        #expect(
            try Permctl.run(["set", "u42", "com.example.maps", "location", "authorized"], url: server.url, key: admin).status
                == 64)
        #expect(try Permctl.run(["status", "u42", "com.a.b", "location"], url: "ftp://x", key: admin).status == 64)
        let userKey = try Permctl.run(["keys", "create", "--role", "user"], url: server.url, key: admin)
        #expect(userKey.status == 64 && userKey.stderr.contains("consent session"), "\(userKey.stderr)")
        // 1: other HTTP errors (404 unknown service, 422 missing purpose string).
        let unknown = try Permctl.run(["status", "u42", "com.example.maps", "teleport"], url: server.url, key: admin)
        #expect(unknown.status == 1 && unknown.stderr.contains("404"), "\(unknown.stderr)")
        let missing = try Permctl.run(
            ["request", "u42", "com.example.none", "camera", "--level", "full"], url: server.url, key: admin)
        #expect(missing.status == 1 && missing.stderr.contains("422"), "\(missing.stderr)")
        // 77: no key or a wrong key (401), a key outside its role (403).
        let noKey = try Permctl.run(["services"], url: server.url)
        #expect(noKey.status == 77 && noKey.stderr.contains("401"), "\(noKey.stderr)")
        let wrong = try Permctl.run(
            ["services"], url: server.url, key: "pk_0000000000000000_" + String(repeating: "A", count: 43))
        #expect(wrong.status == 77 && wrong.stderr.contains("401"), "\(wrong.stderr)")
        let created = try Permctl.run(["keys", "create", "--role", "auditor", "--json"], url: server.url, key: admin)
        if created.status == 0 {
            let issued = try WireDecoder.decodeResponse(IssuedAPIKey.self, from: Array(created.stdout.utf8))
            let forbidden = try Permctl.run(["reset", "all"], url: server.url, key: issued.secret)
            #expect(forbidden.status == 77 && forbidden.stderr.contains("403"), "\(forbidden.stderr)")
        } else {
            Issue.record("keys create failed: \(created.stderr)")
        }
        // 69: the server is down.
        let url = server.url
        server.stop()
        let down = try Permctl.run(["status", "u42", "com.example.maps", "location", "--timeout", "2"], url: url, key: admin)
        #expect(down.status == 69 && down.stderr.contains("transport error"))
    }

    /// An answer that says "later" is 69 whoever gives it: a proxy's 502 or 504 and a 429 as
    /// the server's 503, so that a script that retries on 69 retries them. What the answer's
    /// problem says reaches the terminal with its control characters written out, not acted on.
    @Test(arguments: [502, 504, 429])
    func answersThatSayLaterAreExit69(status: Int) throws {
        let server = try ScriptedServer { _, _ in
            // JSON escapes: the decoded detail holds ESC and BEL.
            .problem(status, slug: "unavailable", detail: #"busy \u001B]0;pwned\u0007\u001B[31mred\npermctl: ok"#)
        }
        defer { server.stop() }
        let result = try Permctl.run(["status", "u42", "com.example.maps", "location"], url: server.url, key: "k")
        #expect(result.status == 69, "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("\u{07}"), "\(result.stderr)")
        #expect(result.stderr.contains(#"busy \u{1B}]0;pwned\u{7}\u{1B}[31mred\u{A}permctl: ok"#), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
    }

    /// A `--timeout` under 1 ms is 1 ms, not libcurl's "no timeout".
    @Test func aTimeoutUnderOneMillisecondStillTimesOut() throws {
        let stalled = try ScriptedServer { _, _ in .stall }
        defer { stalled.stop() }
        let tiny = try Permctl.run(
            ["status", "u42", "com.example.maps", "location", "--timeout", "0.0004"], url: stalled.url, key: "k1",
            timeout: 10)
        #expect(tiny.status == 69 && tiny.stderr.contains("transport error 28"), "\(tiny.stderr)")
    }

    /// A header value with a CR or LF (an `--if-match`, a key) is a usage error, and nothing
    /// is sent.
    @Test func headerValuesWithLineBreaksAreUsageErrors() throws {
        let server = try ScriptedServer { _, _ in .authorization(status: "denied") }
        defer { server.stop() }
        let ifMatch = try Permctl.run(
            ["revoke", "u42", "com.example.maps", "location", "--if-match", "\"v1\"\r\nX-Injected: yes"],
            url: server.url, key: "k1")
        #expect(ifMatch.status == 64, "\(ifMatch.stderr)")
        let key = try Permctl.run(
            ["status", "u42", "com.example.maps", "location"], url: server.url, key: "k1\r\nX-Injected: yes")
        #expect(key.status == 64, "\(key.stderr)")
        #expect(server.requests.isEmpty)
    }

    /// docs/client.md: `permctl [--url URL] [--key KEY] [--json] [--timeout SECONDS] VERB ...`;
    /// after the verb works too, and a URL libcurl cannot parse is a usage error.
    @Test func connectionOptionsBeforeOrAfterTheVerb() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let connection = ["--url", server.url, "--key", server.adminKey]
        let before = try Permctl.run(connection + ["--json", "--timeout", "5", "services", "camera"], url: nil)
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout.contains(#""id":"camera""#), "\(before.stdout)")
        let nested = try Permctl.run(connection + ["keys", "list"], url: nil)
        #expect(nested.status == 0 && nested.stdout.contains("bootstrap"), "\(nested.stderr)")
        let after = try Permctl.run(["services", "camera", "--json"] + connection, url: nil)
        #expect(after.status == 0 && after.stdout == before.stdout, "\(after.stderr)")
        let split = try Permctl.run(["--url", server.url, "services", "--key", server.adminKey], url: nil)
        #expect(split.status == 0, "\(split.stderr)")
        // The flag still wins over the environment, before the verb as after it.
        let overriding = try Permctl.run(["--url", server.url, "services"], url: "http://127.0.0.1:9", key: server.adminKey)
        #expect(overriding.status == 0, "\(overriding.stderr)")
        #expect(try Permctl.run(["--timeout", "0", "services"], url: server.url, key: server.adminKey).status == 64)
        for malformed in ["http://127.0.0.1:notaport", "http://127.0.0.1:99999", "http://exa mple.com"] {
            let refused = try Permctl.run(["--url", malformed, "services"], url: nil, key: server.adminKey)
            #expect(refused.status == 64, "\(malformed): \(refused.stderr)")
            #expect(refused.stderr.contains("the server URL is malformed"), "\(malformed): \(refused.stderr)")
        }
        // A query or a fragment would come before every call's path: refused, not a 404 on each.
        for url in [server.url + "/?tenant=1", server.url + "#top"] {
            let refused = try Permctl.run(["--url", url, "services"], url: nil, key: server.adminKey)
            #expect(refused.status == 64 && refused.stderr.contains("no query (?) or fragment (#)"), "\(refused.stderr)")
        }
        // A password in the URL is never echoed.
        let withPassword = try Permctl.run(["--url", "http://ops:hunter2secret@127.0.0.1:notaport", "services"], url: nil)
        #expect(withPassword.status == 64 && withPassword.stderr.contains("http://ops:***@127.0.0.1:notaport"))
        #expect(!withPassword.stderr.contains("hunter2secret"))
        for url in ["ops:hunter2secret@127.0.0.1:8080", "http://ops:hunter2#secret@127.0.0.1"] {
            let refused = try Permctl.run(["--url", url, "services"], url: nil)
            #expect(refused.status == 64 && refused.stderr.contains("ops:***@127.0.0.1"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("hunter2"), "\(refused.stderr)")
        }
        // An empty key is no key, given either way: 401, as with none.
        let emptyKey = try Permctl.run(["--key", "", "services"], url: server.url)
        #expect(emptyKey.status == 77 && emptyKey.stderr.contains("401"), "\(emptyKey.stderr)")
    }

    /// docs/client.md: the key from the first line of a file, `--key-file` or
    /// `PERMISSION_KEY_FILE`; a flag wins over the environment, two ways at once are refused
    /// (64), and a file that is not a key exits with 66, before anything is sent.
    @Test func theKeyFromAFile() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyfile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ text: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let crlf = try file("crlf", server.adminKey + "\r\nsecond line\n")
        let bare = try file("bare", server.adminKey)
        let wrong = try file("wrong", "pk_not_a_key\n")
        for path in [crlf, bare] {
            let flag = try Permctl.run(["--key-file", path, "services", "camera"], url: server.url)
            #expect(flag.status == 0, "\(flag.stderr)")
            let variable = try Permctl.run(["services", "camera"], url: server.url, extra: ["PERMISSION_KEY_FILE": path])
            #expect(variable.status == 0, "\(variable.stderr)")
        }
        // The flag wins over either variable.
        let overFile = try Permctl.run(
            ["--key-file", crlf, "services"], url: server.url, extra: ["PERMISSION_KEY_FILE": wrong])
        #expect(overFile.status == 0, "\(overFile.stderr)")
        let overKey = try Permctl.run(["--key-file", crlf, "services"], url: server.url, key: "pk_not_a_key")
        #expect(overKey.status == 0, "\(overKey.stderr)")
        #expect(try Permctl.run(["--key-file", wrong, "services"], url: server.url).status == 77)

        // Refusals reach no server: a scripted one counts what it was sent.
        let scripted = try ScriptedServer { _, _ in .authorization(status: "denied") }
        defer { scripted.stop() }
        let both = try Permctl.run(["--key", "k1", "--key-file", crlf, "services"], url: scripted.url)
        #expect(both.status == 64 && both.stderr.contains("not both"), "\(both.stderr)")
        let bothVariables = try Permctl.run(
            ["services"], url: scripted.url, key: "k1", extra: ["PERMISSION_KEY_FILE": crlf])
        #expect(bothVariables.status == 64 && bothVariables.stderr.contains("both set"), "\(bothVariables.stderr)")
        let large = try file("large", String(repeating: "k", count: 5_000))
        let empty = try file("empty", "\nkey on the second line\n")
        for (path, why) in [
            (directory.appendingPathComponent("missing").path, "No such file"), (directory.path, "cannot be read"),
            (large, "larger than 4096 bytes"), (empty, "first line is empty"),
        ] {
            let refused = try Permctl.run(["--key-file", path, "services"], url: scripted.url)
            #expect(refused.status == 66 && refused.stderr.contains(why), "\(path): \(refused.stderr)")
            #expect(refused.stderr.contains("--key-file"), "\(refused.stderr)")
        }
        let variable = try Permctl.run(["services"], url: scripted.url, extra: ["PERMISSION_KEY_FILE": empty])
        #expect(variable.status == 66 && variable.stderr.contains("PERMISSION_KEY_FILE"), "\(variable.stderr)")
        #expect(scripted.requests.isEmpty, "nothing sent for a key that was not read")
    }

    @Test(arguments: verbs)
    func everyVerbHasHelpWithAnExample(verb: String) throws {
        let help = try Permctl.run([verb, "--help"], url: nil)
        #expect(help.status == 0)
        #expect(help.stdout.contains("Example"), "\(verb) --help:\n\(help.stdout)")
        #expect(help.stdout.contains("--json") || help.stdout.contains("SUBCOMMANDS"))
    }

    /// docs/client.md: with `--json` a failed call is one JSON object on stderr (the server's
    /// problem as sent, or the transport failure's code), with the same exit codes.
    @Test func jsonFailuresAreJSONOnStderr() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let missing = try Permctl.run(["--json", "apps", "get", "com.example.none"], url: server.url, key: server.adminKey)
        #expect(missing.status == 1 && missing.stdout.isEmpty, "\(missing.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(missing.stderr.utf8)) as? [String: Any], "\(missing.stderr)")
        #expect(object["error"] as? String == "http" && object["status"] as? Int == 404)
        let problem = try #require(object["problem"] as? [String: Any])
        #expect(problem["type"] as? String == "https://permissions.example/problems/not-found", "\(problem)")
        #expect((object["requestId"] as? String).map { !$0.isEmpty } == true)
        #expect((object["message"] as? String)?.contains("404") == true, "\(object)")
        #expect(missing.stderr.split(separator: "\n").count == 1, "one line")

        let refused = try Permctl.run(["services", "--json"], url: "http://127.0.0.1:9", key: "k1")
        #expect(refused.status == 69, "\(refused.stderr)")
        let transport = try #require(
            try JSONSerialization.jsonObject(with: Data(refused.stderr.utf8)) as? [String: Any], "\(refused.stderr)")
        #expect(transport["error"] as? String == "transport" && transport["code"] as? Int == 7, "\(transport)")
        // Without --json, the line as before.
        let plain = try Permctl.run(["apps", "get", "com.example.none"], url: server.url, key: server.adminKey)
        #expect(plain.status == 1 && plain.stderr.hasPrefix("permctl: "), "\(plain.stderr)")
    }

    /// A line that lost its verb is a usage error on stderr, not help on stdout with exit 0;
    /// groups with a listing (`apps`, `keys`, `policies`) list.
    @Test func aMissingVerbIsAUsageError() throws {
        for arguments in [[], ["users"], ["--json"]] {
            let missing = try Permctl.run(arguments, url: "http://127.0.0.1:9")
            #expect(missing.status == 64, "\(arguments): \(missing.stderr)")
            #expect(missing.stdout.isEmpty && missing.stderr.contains("Usage:"), "\(arguments): \(missing.stderr)")
        }
        let listing = try Permctl.run(["apps"], url: "http://127.0.0.1:9")
        #expect(listing.status == 69, "apps lists, and no server answers: \(listing.stderr)")
    }

    @Test func rootHelpDocumentsExitCodes() throws {
        let help = try Permctl.run(["--help"], url: nil)
        #expect(help.status == 0)
        for needle in ["64", "66", "69", "77", "PERMISSION_URL", "PERMISSION_KEY", "PERMISSION_KEY_FILE", "--key-file"] {
            #expect(help.stdout.contains(needle), "\(needle)")
        }
    }
}
