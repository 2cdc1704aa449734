import Foundation
import LiveTestSupport
import PermissionWire
import TestThreads
import Testing

/// Location alerts against the real binary with intervals of seconds
/// (`--location-alert-intervals 2s,20s`): the server's own scheduler raises exactly one alert
/// per interval for an app with Always, none for While Using or Ask Next Time, an app update
/// starts the intervals over, both answers do what they say, and each step is on the feed.
@Suite(.serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct LocationAlertLiveTests {
    static let app = "com.example.maps"

    /// `curl` with the admin key, a JSON body when given; the body and the status.
    static func call(
        _ server: ServerProcess, _ method: String, _ path: String, _ json: String? = nil
    ) throws -> (
        status: String, body: String
    ) {
        let marker = "\n--status:"
        var arguments = ["-X", method, "-w", "\(marker)%{http_code}"]
        if let json { arguments += ["-H", "Content-Type: application/json", "--data-binary", json] }
        let result = try Subprocess.adminCurl(arguments + ["\(server.baseURL)\(path)"])
        guard let range = result.stdout.range(of: marker, options: .backwards) else { return ("", result.stdout) }
        return (String(result.stdout[range.upperBound...]), String(result.stdout[..<range.lowerBound]))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ body: String) throws -> T {
        try WireDecoder.decodeResponse(type, from: Array(body.utf8))
    }

    static func used(_ server: ServerProcess, _ user: String) throws -> Bool? {
        let (status, body) = try call(
            server, "POST", "/v1/users/\(user)/apps/\(app)/lifecycle", #"{"event":"backgroundLocationUsed"}"#)
        guard status == "200" else { throw TestFailure("lifecycle \(status): \(body)") }
        return try decode(LifecycleResult.self, body).usageRecorded
    }

    /// Every location alert of `user`, any state, oldest first.
    static func alerts(_ server: ServerProcess, _ user: String) throws -> [Prompt] {
        let (_, body) = try call(server, "GET", "/v1/users/\(user)/prompts?limit=100")
        return try decode(PromptList.self, body).items.filter { $0.kind == .locationAlert }
    }

    /// Polls (every 100 ms, at most `timeout` s) until `user` has `count` alerts.
    static func waitForAlerts(_ server: ServerProcess, _ user: String, count: Int, timeout: Double = 15) throws -> [Prompt] {
        let deadline = Date().addingTimeInterval(timeout)
        var found = try alerts(server, user)
        while found.count < count, Date() < deadline {
            usleep(100_000)
            found = try alerts(server, user)
        }
        return found
    }

    static func register(_ server: ServerProcess, version: String) throws {
        let (status, body) = try call(
            server, "PUT", "/v1/apps/\(app)",
            #"{"name":"Maps","version":"\#(version)","purposeStrings":{"NSLocationWhenInUseUsageDescription":"Nearby stops.","NSLocationAlwaysAndWhenInUseUsageDescription":"Alerts near your stop."}}"#
        )
        guard status == "200" || status == "201" else { throw TestFailure("register \(status): \(body)") }
    }

    static func set(_ server: ServerProcess, _ user: String, _ json: String) throws {
        let (status, body) = try call(server, "PUT", "/v1/users/\(user)/apps/\(app)/authorizations/location", json)
        guard status == "200" else { throw TestFailure("settings \(status): \(body)") }
    }

    @Test("the server raises one alert per interval for Always only, an update starts over, both answers work, all on the feed")
    func alertsComeFromTheServersScheduler() throws {
        let directory = try Paths.makeTemporaryDirectory("location-alerts")
        defer { Paths.removeTemporary(directory) }
        let server = try ServerProcess(
            database: directory.appendingPathComponent("alerts.sqlite").path, directory: directory,
            extraArguments: ["--location-alert-intervals", "2s,20s"])
        defer { server.killNow() }
        let feed = try StreamingCurl(url: "\(server.baseURL)/v1/events", key: ServerProcess.adminKey, directory: directory)
        #expect(feed.waitFor(": connected", timeout: 10), "the feed did not open: \(feed.text)")

        try Self.register(server, version: "1.0")
        try Self.set(server, "always", #"{"status":"authorized","level":"always"}"#)
        try Self.set(server, "whileUsing", #"{"status":"authorized","level":"whenInUse"}"#)
        let firstUse = Date()
        #expect(try Self.used(server, "always") == true)
        #expect(try Self.used(server, "always") == true)
        #expect(try Self.used(server, "whileUsing") == false)
        #expect(try Self.used(server, "askNextTime") == false)

        let first = try #require(try Self.waitForAlerts(server, "always", count: 1).first, "no alert within 15 s")
        #expect(first.createdAt.timeIntervalSince(firstUse) >= 1.9, "not before the first interval")
        #expect(first.backgroundUses == 2 && first.options == ["keepAlways", "changeToWhileUsing"])
        #expect(first.purpose == "Alerts near your stop." && first.state == .pending)
        #expect(feed.waitFor(#""kind":"locationAlert""#, timeout: 10), "the alert is on the feed: \(feed.text)")

        // The next interval is 20 s: a new use brings no second alert meanwhile.
        let kept = try Self.call(server, "POST", "/v1/prompts/\(first.id)/decision", #"{"choice":"keepAlways"}"#)
        #expect(kept.status == "200" && kept.body.contains(#""level":"always""#), "\(kept.body)")
        #expect(try Self.used(server, "always") == true)
        usleep(3_000_000)
        #expect(try Self.alerts(server, "always").count == 1, "exactly one alert in the interval")
        #expect(try Self.alerts(server, "whileUsing").isEmpty && Self.alerts(server, "askNextTime").isEmpty, "ineligible: none")

        // An update starts over at 2 s from the last alert, which has passed.
        try Self.register(server, version: "1.1")
        let both = try Self.waitForAlerts(server, "always", count: 2)
        let second = try #require(both.count == 2 ? both.last : nil, "no alert after the update")
        #expect(second.createdAt.timeIntervalSince(first.createdAt) < 15, "well before the 20 s interval")
        #expect(second.backgroundUses == 3)

        let narrowed = try Self.call(server, "POST", "/v1/prompts/\(second.id)/decision", #"{"choice":"changeToWhileUsing"}"#)
        let result = try Self.decode(DecisionResult.self, narrowed.body)
        #expect(result.authorization.status == .authorized && result.authorization.level == "whenInUse")
        #expect(result.authorization.reason == .userConsent)
        #expect(feed.waitFor(#""choice":"changeToWhileUsing""#, timeout: 10), "the answer is on the feed: \(feed.text)")
        #expect(try Self.used(server, "always") == false, "no longer Always: not kept")
        let audit = try Self.call(server, "GET", "/v1/audit?user=always&limit=100").body
        #expect(audit.components(separatedBy: #""kind":"locationAlert""#).count - 1 >= 4, "two created, two answered")
    }
}
