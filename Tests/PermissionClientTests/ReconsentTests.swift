import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

/// Re-consent (SPEC §11) against the real `permission-server`: the SDK and `permctl` register a
/// changed purpose string, see the grant flagged and listed, and ask again with `reconsent`.
@Suite("Re-consent against the real server", .serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct ReconsentTests {
    static let app = "com.example.maps"
    static let camera = "NSCameraUsageDescription"

    @Test func theSDKFlagsListsAndAsksAgain() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try LiveServerTests.client(server)
        _ = try await client.registerApp(Self.app, name: "Maps", purposeStrings: [Self.camera: "Scans tickets."])
        let outcome = try await client.requestAccess(user: "u42", app: Self.app, service: "camera", level: "full")
        _ = try await client.decide(prompt: try #require(outcome.prompt).id, choice: "allow")
        #expect(try await client.authorization(user: "u42", app: Self.app, service: "camera").purposeChanged == nil)

        let changed = try await client.registerApp(Self.app, name: "Maps", purposeStrings: [Self.camera: "Scans receipts."])
        #expect(changed.reconsented == nil, "counted only when asked to re-consent")
        let flagged = try await client.authorization(user: "u42", app: Self.app, service: "camera")
        #expect(flagged.purposeChanged == true && flagged.status == .authorized)
        let listed = try await client.purposeChanged(app: Self.app)
        #expect(listed.items.map(\.user) == ["u42"] && listed.nextCursor == nil)

        let asked = try await client.registerApp(
            Self.app, name: "Maps", purposeStrings: [Self.camera: "Scans receipts."], reconsent: true)
        #expect(asked.reconsented == 1)
        let after = try await client.authorization(user: "u42", app: Self.app, service: "camera")
        #expect(after.status == .notDetermined && after.reason == .purposeChanged && after.purposeChanged == nil)
        let entries = try await client.audit(AuditQuery(action: "authorization.reconsent")).items
        #expect(entries.count == 1 && entries.first?.actor.role == "admin" && entries.first?.user == "u42")
        let again = try await client.requestAccess(user: "u42", app: Self.app, service: "camera", level: "full")
        #expect(again.prompt?.purpose == "Scans receipts.")
    }

    @Test func permctlRegistersWithReconsentAndListsChangedGrants() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        func run(_ arguments: String...) throws -> Permctl.Result {
            try Permctl.run(arguments, url: server.url, key: server.adminKey)
        }
        #expect(try run("apps", "register", Self.app, "--name", "Maps", "--purpose", "\(Self.camera)=Scans tickets.").status == 0)
        let client = try LiveServerTests.client(server)
        let outcome = try await client.requestAccess(user: "u42", app: Self.app, service: "camera", level: "full")
        _ = try await client.decide(prompt: try #require(outcome.prompt).id, choice: "allow")
        #expect(
            try run("apps", "register", Self.app, "--name", "Maps", "--purpose", "\(Self.camera)=Scans receipts.").status == 0)

        let listed = try run("apps", "purpose-changed", Self.app)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("u42") && listed.stdout.contains("Scans tickets."), "\(listed.stdout)")
        let status = try run("status", "u42", Self.app, "camera")
        #expect(status.stdout.contains("purpose changed"), "\(status.stdout)")

        let asked = try run(
            "apps", "register", Self.app, "--name", "Maps", "--purpose", "\(Self.camera)=Scans receipts.", "--reconsent")
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(asked.stdout.contains("Asked again for 1 grant(s)"), "\(asked.stdout)")
        let empty = try run("apps", "purpose-changed", Self.app, "--json")
        let page = try WireDecoder.decodeResponse(AuthorizationList.self, from: Array(empty.stdout.utf8))
        #expect(page.items.isEmpty)
        let after = try await client.authorization(user: "u42", app: Self.app, service: "camera")
        #expect(after.reason == .purposeChanged)
    }
}
