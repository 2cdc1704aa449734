import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

/// Expiring grants (SPEC §11) against the real `permission-server`, real clock: the SDK and
/// `permctl` send `until`, the server shows it as `expiresAt`, and its sweeper writes the lapse
/// (actor `system`) about a second after `until` without anyone asking.
@Suite("Expiring grants against the real server", .serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct ExpiringGrantTests {
    static let app = "com.example.maps"

    @Test func theSDKsUntilLapsesOnTheServerWithinSeconds() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try LiveServerTests.client(server)
        _ = try await client.registerApp(Self.app, name: "Maps", purposeStrings: ["NSCameraUsageDescription": "Scans tickets."])

        let outcome = try await client.requestAccess(user: "u42", app: Self.app, service: "camera", level: "full")
        let prompt = try #require(outcome.prompt)
        let until = Date().addingTimeInterval(3)  // both writes before it, on a loaded machine too
        let decided = try await client.decide(prompt: prompt.id, choice: "allow", until: until)
        #expect(decided.authorization.status == .authorized)
        let shown = try #require(decided.authorization.expiresAt)
        #expect(abs(shown.timeIntervalSince(until)) < 0.001, "expiresAt is until, to the millisecond")

        let set = try await client.setAuthorization(
            user: "u43", app: Self.app, service: "camera", SettingsChange(status: .authorized, level: "full", until: until))
        #expect(set.expiresAt != nil && set.status == .authorized)

        // The sweeper runs about every 250 ms; allow generously for a loaded machine.
        let deadline = Date().addingTimeInterval(15)
        var lapsed: [Authorization] = []
        while Date() < deadline {
            lapsed = []
            for user in ["u42", "u43"] {
                lapsed.append(try await client.authorization(user: user, app: Self.app, service: "camera"))
            }
            if lapsed.allSatisfy({ $0.version == 2 }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        for authorization in lapsed {
            #expect(authorization.status == .notDetermined && authorization.reason == .expired, "\(authorization)")
            #expect(authorization.version == 2, "written by the server, not only read as lapsed")
        }
        let expired = try await client.audit(AuditQuery(action: "authorization.expired")).items
        #expect(expired.count == 2 && expired.allSatisfy { $0.actor.role == "system" && $0.actor.keyId == nil })
        #expect(Set(expired.map(\.user)) == ["u42", "u43"])
    }

    @Test func permctlSendsUntilAndRefusesItWhereItDoesNotGo() throws {
        let server = try LiveServer()
        defer { server.stop() }
        func run(_ arguments: String...) throws -> Permctl.Result {
            try Permctl.run(arguments, url: server.url, key: server.adminKey)
        }
        let registered = try run(
            "apps", "register", Self.app, "--name", "Maps", "--purpose", "NSLocationWhenInUseUsageDescription=Shows nearby stops."
        )
        #expect(registered.status == 0, "\(registered.stderr)")
        let until = Timestamp.format(Date().addingTimeInterval(3600))
        let set = try run("set", "u42", Self.app, "location", "authorized", "--level", "whenInUse", "--until", until, "--json")
        #expect(set.status == 0, "\(set.stderr)")
        let authorization = try WireDecoder.decodeResponse(Authorization.self, from: Array(set.stdout.utf8))
        #expect(authorization.expiresAt.map(Timestamp.format) == until)
        #expect(
            try run("set", "u42", Self.app, "location", "authorized", "--level", "whenInUse", "--until", until)
                .stdout.contains(until), "the plain output shows when it expires")

        #expect(try run("set", "u42", Self.app, "location", "denied", "--until", until).status == 64)
        #expect(
            try run("set", "u42", Self.app, "location", "authorized", "--level", "always", "--until", "tomorrow").status == 64)
        let past = try run(
            "set", "u42", Self.app, "location", "authorized", "--level", "whenInUse", "--until", "2020-01-01T00:00:00Z")
        #expect(past.status == 1 && past.stderr.contains("422") && past.stderr.contains("until"), "\(past.stderr)")
        #expect(try run("decide", "some-prompt", "allow", "--until", "soon").status == 64)

        #expect(
            try run("apps", "register", Self.app, "--name", "Maps", "--purpose", "NSCameraUsageDescription=Scans.").status == 0)
        let requested = try run("request", "u42", Self.app, "camera", "--level", "full", "--json")
        let prompt = try #require(try WireDecoder.decodeResponse(RequestOutcome.self, from: Array(requested.stdout.utf8)).prompt)
        let decided = try run("decide", prompt.id, "allow", "--until", until, "--json")
        #expect(decided.status == 0, "\(decided.stderr)")
        let result = try WireDecoder.decodeResponse(DecisionResult.self, from: Array(decided.stdout.utf8))
        #expect(result.authorization.expiresAt.map(Timestamp.format) == until)
    }
}
