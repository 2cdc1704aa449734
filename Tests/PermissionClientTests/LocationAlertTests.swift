import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

/// Location alerts (SPEC §11) through the SDK against the real `permission-server`, started
/// with `PERMISSION_LOCATION_ALERT_INTERVALS=1s`: `lifecycle(…, usedAt:)` reports a dated
/// background use and reads `usageRecorded`; a use dated outside the last 3 days (or ahead of
/// the server's clock) is refused, `422 invalid-combination` naming `usedAt`, like an `until`
/// in the past; the alert the sweeper then issues is listed and answered.
@Suite("Location alerts against the real server", .serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct LocationAlertTests {
    static let app = "com.example.maps"
    static let purposes = [
        "NSLocationWhenInUseUsageDescription": "Shows nearby stops.",
        "NSLocationAlwaysAndWhenInUseUsageDescription": "Alerts you near your stop.",
    ]
    static let environment = ["PERMISSION_LOCATION_ALERT_INTERVALS": "1s"]

    /// Polls the user's pending prompts (bounded) until a location alert is among them.
    static func locationAlert(_ client: PermissionClient, user: String, within seconds: Double = 15) async throws -> Prompt {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let pending = try await client.prompts(user: user, state: .pending).items
            if let alert = pending.first(where: { $0.kind == .locationAlert }) { return alert }
            guard Date() < deadline else { throw TestFailure("no location alert for \(user) within \(seconds) s: \(pending)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func aDatedBackgroundUseIsRecordedForAlwaysOnlyAndTheAlertIsAnswered() async throws {
        let server = try LiveServer(environment: Self.environment)
        defer { server.stop() }
        let client = try LiveServerTests.client(server)
        _ = try await client.registerApp(Self.app, name: "Maps", purposeStrings: Self.purposes)
        _ = try await client.setAuthorization(
            user: "u1", app: Self.app, service: "location", SettingsChange(status: .authorized, level: "always"))
        _ = try await client.setAuthorization(
            user: "u2", app: Self.app, service: "location", SettingsChange(status: .authorized, level: "whenInUse"))
        let twoHoursAgo = Date().addingTimeInterval(-7_200)

        let always = try await client.lifecycle(
            user: "u1", app: Self.app, event: .backgroundLocationUsed, usedAt: twoHoursAgo)
        #expect(always.usageRecorded == true && always.changed.isEmpty && always.prompt == nil, "\(always)")
        let whileUsing = try await client.lifecycle(
            user: "u2", app: Self.app, event: .backgroundLocationUsed, usedAt: twoHoursAgo)
        #expect(whileUsing.usageRecorded == false, "\(whileUsing)")
        let undecided = try await client.lifecycle(user: "u3", app: Self.app, event: .backgroundLocationUsed)
        #expect(undecided.usageRecorded == false, "\(undecided)")
        let other = try await client.lifecycle(user: "u1", app: Self.app, event: .sessionEnded)
        #expect(other.usageRecorded == nil, "only backgroundLocationUsed answers it")

        for usedAt in [Date().addingTimeInterval(-4 * 86_400), Date().addingTimeInterval(3_600)] {
            do {
                _ = try await client.lifecycle(user: "u1", app: Self.app, event: .backgroundLocationUsed, usedAt: usedAt)
                Issue.record("a use at \(usedAt) must be refused")
            } catch {
                #expect(error.status == 422 && error.problemType == .invalidCombination, "\(error)")
                guard case .http(_, let problem, _) = error else {
                    Issue.record("expected an HTTP problem, got \(error)")
                    continue
                }
                #expect(problem?.detail.hasPrefix("usedAt: ") == true, "\(String(describing: problem))")
            }
        }

        let alert = try await Self.locationAlert(client, user: "u1")
        #expect(alert.backgroundUses == 1 && alert.options == ["keepAlways", "changeToWhileUsing"])
        #expect(alert.purpose == "Alerts you near your stop." && alert.level == "always")
        #expect(try await client.prompts(user: "u2", state: .pending).items.isEmpty, "no alert without Always")
        let decided = try await client.decide(prompt: alert.id, choice: "changeToWhileUsing")
        #expect(decided.authorization.status == .authorized && decided.authorization.level == "whenInUse")
        #expect(decided.authorization.reason == .userConsent)
        let after = try await client.lifecycle(user: "u1", app: Self.app, event: .backgroundLocationUsed)
        #expect(after.usageRecorded == false, "While Using: no longer counted")
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
