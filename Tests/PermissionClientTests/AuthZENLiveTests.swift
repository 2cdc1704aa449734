import Foundation
import PermissionClient
import PermissionWire
import TestProcesses
import TestThreads
import Testing

/// AuthZEN (SPEC §11) against the real `permission-server`: the SDK's `evaluate`, `permctl
/// evaluate`, and the system's curl, which sends exactly the bytes a third-party PEP would.
@Suite("AuthZEN against the real server", .serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct AuthZENLiveTests {
    static let app = "com.example.maps"

    @Test func theSDKEvaluatesOneAndMany() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try LiveServerTests.client(server)
        _ = try await client.registerApp(
            Self.app, name: "Maps", purposeStrings: ["NSLocationWhenInUseUsageDescription": "Shows nearby stops."])
        _ = try await client.setAuthorization(
            user: "u42", app: Self.app, service: "location", SettingsChange(status: .authorized, level: "whenInUse"))
        let permit = try await client.evaluate(app: Self.app, user: "u42", action: "location.whenInUse")
        #expect(permit.decision && permit.context?.level == "whenInUse" && permit.context?.status == "authorized")
        let deny = try await client.evaluate(app: Self.app, user: "u42", action: "location.always")
        #expect(!deny.decision && deny.context?.promptRequired == false)
        let batch = try await client.evaluate(
            AccessEvaluationsRequest(
                subject: .app(Self.app), resource: .user("u42"),
                evaluations: [
                    AccessEvaluationItem(action: AccessAction(name: "camera")),
                    AccessEvaluationItem(action: AccessAction(name: "location")),
                    AccessEvaluationItem(action: AccessAction(name: "microphone")),
                ],
                options: AccessEvaluationsOptions(evaluationsSemantic: "permit_on_first_permit")))
        #expect(batch.evaluations.map(\.decision) == [false, true], "stops after the first permit")
        #expect(batch.evaluations[0].context?.promptRequired == true)
        do {
            _ = try await client.evaluate(app: Self.app, user: "u42", action: "teleport")
            Issue.record("an unknown service is refused")
        } catch {
            #expect(error.status == 400 && error.problemType == .invalidRequest, "\(error)")
        }
        let metadata = try await client.authZENConfiguration()
        #expect(metadata.policyDecisionPoint == server.url)
        #expect(metadata.accessEvaluationsEndpoint == server.url + "/access/v1/evaluations")
        // An evaluation only reads: kept-alive connections and retries, like a GET.
        #expect(Endpoints.evaluate(app: Self.app, user: "u42", action: "camera").isIdempotent)
        #expect(!Endpoints.requestAccess(user: "u42", app: Self.app, service: "camera", level: "full").isIdempotent)
    }

    @Test func anAppKeyEvaluatesOnlyItsOwnApp() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let admin = try LiveServerTests.client(server)
        let issued = try await admin.createKey(NewAPIKey(role: .app, app: Self.app, name: "maps"))
        let own = try LiveServerTests.client(server, key: issued.secret)
        #expect(try await own.evaluate(app: Self.app, user: "u42", action: "camera").decision == false)
        do {
            _ = try await own.evaluate(app: "com.example.other", user: "u42", action: "camera")
            Issue.record("another app is refused")
        } catch {
            #expect(error.status == 403 && error.isAccessDenied)
        }
    }

    @Test func permctlEvaluatesAndExitsZeroOnADenial() throws {
        let server = try LiveServer()
        defer { server.stop() }
        func run(_ arguments: String...) throws -> Permctl.Result {
            try Permctl.run(arguments, url: server.url, key: server.adminKey)
        }
        #expect(
            try run("apps", "register", Self.app, "--name", "Maps", "--purpose", "NSCameraUsageDescription=Scans tickets.").status
                == 0)
        #expect(try run("set", "u42", Self.app, "camera", "authorized", "--level", "full").status == 0)
        let one = try run("evaluate", "--app", Self.app, "--user", "u42", "--action", "camera", "--json")
        #expect(one.status == 0, "\(one.stderr)")
        #expect(try WireDecoder.decodeResponse(AccessEvaluationResponse.self, from: Array(one.stdout.utf8)).decision)
        let table = try run(
            "evaluate", "--app", Self.app, "--user", "u42", "--action", "camera", "--action", "location.always",
            "--action", "microphone", "--semantic", "deny_on_first_deny")
        #expect(table.status == 0, "\(table.stderr)")
        let rows = table.stdout.split(separator: "\n")
        #expect(rows.count == 4, "a header, the two answers up to the first denial, the action not evaluated: \(table.stdout)")
        #expect(rows.dropFirst().first?.contains("permit") == true && rows.dropFirst(2).first?.contains("deny") == true)
        #expect(rows.dropFirst(2).first?.contains("required") == true)
        #expect(
            rows.last?.hasPrefix("microphone") == true
                && rows.last?.contains("not evaluated (deny_on_first_deny stopped before it)") == true, "\(table.stdout)")
        let unknown = try run("evaluate", "--app", Self.app, "--user", "u42", "--action", "teleport")
        #expect(unknown.status == 1 && unknown.stderr.contains("action/name"), "\(unknown.stderr)")
        #expect(try run("evaluate", "--app", Self.app, "--user", "u42").status == 64)
        #expect(
            try run("evaluate", "--app", Self.app, "--user", "u42", "--action", "camera", "--semantic", "execute_all").status
                == 64)
    }

    @Test func curlAsAThirdPartyPEP() throws {
        let server = try LiveServer()
        defer { server.stop() }
        let body =
            #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}"#
        let result = try Self.curl([
            "-s", "-i", "-X", "POST", server.url + "/access/v1/evaluation", "-H", "Authorization: Bearer \(server.adminKey)",
            "-H", "Content-Type: application/json", "-H", "X-Request-ID: pep-7", "--data-binary", body,
        ])
        let text = result.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(text.hasPrefix("HTTP/1.1 200"), "\(text)")
        #expect(text.lowercased().contains("\nx-request-id: pep-7\n"), "\(text)")
        #expect(
            text.hasSuffix(
                #"{"context":{"level":null,"prompt_required":true,"reason":"default","status":"notDetermined"},"decision":false}"#
            ))
        let metadata = try Self.curl(["-s", server.url + "/.well-known/authzen-configuration"])
        #expect(metadata.contains(#""policy_decision_point":"\#(server.url)""#), "\(metadata)")
    }

    /// Runs the system's curl and returns what it printed.
    static func curl(_ arguments: [String]) throws -> String {
        let done = try ChildProcess.run("/usr/bin/curl", ["--max-time", "10"] + arguments, timeout: 20)
        #expect(done.status == 0, "\(done.standardError)")
        return done.standardOutput
    }
}
