import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

/// The location button and prompt hygiene (SPEC §11) against the real `permission-server`:
/// the SDK's `pressLocationButton` and `permctl button` raise the button's prompt, then grant
/// Allow Once without one; a prompt more than the limit is a `too-many-prompts` problem whose
/// `pending` the SDK decodes and `permctl` reports.
@Suite("The location button against the real server", .serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct LocationButtonTests {
    static let app = "com.example.maps"
    static let purposes = [
        "NSLocationWhenInUseUsageDescription": "Shows nearby stops.", "NSCameraUsageDescription": "Scans tickets.",
        "NSMicrophoneUsageDescription": "Voice search.", "NSContactsUsageDescription": "Share a ticket.",
    ]

    @Test func theSDKPressesTheButtonAndDecodesTheTooManyPromptsProblem() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try LiveServerTests.client(server)
        _ = try await client.registerApp(Self.app, name: "Maps", purposeStrings: Self.purposes)

        let first = try await client.pressLocationButton(user: "u42", app: Self.app)
        #expect(first.outcome == .prompted)
        let prompt = try #require(first.prompt)
        #expect(prompt.kind == .locationButton && prompt.options == ["allowOnce", "deny"])
        _ = try await client.decide(prompt: prompt.id, choice: "allowOnce")
        let granted = try await client.pressLocationButton(user: "u42", app: Self.app)
        #expect(granted.outcome == .granted && granted.authorization.once && granted.authorization.status == .authorized)
        let entries = try await client.audit(AuditQuery(action: "locationButton.granted")).items
        #expect(entries.count == 1 && entries.first?.user == "u42")

        var pending: [String] = []
        for service in ["camera", "microphone", "contacts"] {
            let outcome = try await client.requestAccess(user: "u43", app: Self.app, service: service, level: "full")
            pending.append(try #require(outcome.prompt).id)
        }
        do {
            _ = try await client.pressLocationButton(user: "u43", app: Self.app)
            Issue.record("a fourth prompt must be refused")
        } catch {
            #expect(error.status == 429 && error.problemType == .tooManyPrompts)
            guard case .http(_, let problem, _) = error else {
                Issue.record("expected an HTTP problem, got \(error)")
                return
            }
            #expect(problem?.limit == 3)
            #expect(Set(problem?.pending?.map(\.id) ?? []) == Set(pending))
        }
    }

    @Test func permctlPressesTheButtonAndShowsThePromptKind() throws {
        let server = try LiveServer()
        defer { server.stop() }
        func run(_ arguments: String...) throws -> Permctl.Result {
            try Permctl.run(arguments, url: server.url, key: server.adminKey)
        }
        #expect(
            try run(
                "apps", "register", Self.app, "--name", "Maps", "--purpose",
                "NSLocationWhenInUseUsageDescription=Shows nearby stops."
            ).status == 0)
        let first = try run("button", "u42", Self.app)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("(locationButton), options allowOnce, deny"), "\(first.stdout)")
        let listed = try run("prompts", "u42")
        #expect(listed.stdout.contains("KIND") && listed.stdout.contains("locationButton"), "\(listed.stdout)")
        let json = try run("button", "u42", Self.app, "--json")
        let result = try WireDecoder.decodeResponse(LocationButtonResult.self, from: Array(json.stdout.utf8))
        let prompt = try #require(result.prompt)
        #expect(try run("decide", prompt.id, "allowOnce").status == 0)
        let granted = try run("button", "u42", Self.app)
        #expect(granted.status == 0 && granted.stdout.contains("Granted Allow Once by the location button."), "\(granted.stdout)")
        #expect(try run("set", "u42", Self.app, "location", "authorized", "--level", "whenInUse").status == 0)
        let unchanged = try run("button", "u42", Self.app)
        #expect(unchanged.stdout.contains("Unchanged: alreadyAuthorized."), "\(unchanged.stdout)")
    }
}
