import Foundation
import PermissionClient
import PermissionWire
import TestThreads
import Testing

/// A user's export against the real `permission-server`: the SDK's decoded `export(user:)` and
/// byte-exact `exportDocument(user:)`, and `permctl users export` printing the document or
/// writing it to a private file with a summary.
@Suite("User export against the real server", .serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct UserExportTests {
    static let app = "com.example.maps"

    @Test func theSDKAndPermctlFetchTheSameDocument() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try LiveServerTests.client(server)
        _ = try await client.registerApp(Self.app, name: "Maps", purposeStrings: ["NSCameraUsageDescription": "Scans tickets."])
        let outcome = try await client.requestAccess(user: "u42", app: Self.app, service: "camera", level: "full")
        _ = try await client.decide(prompt: try #require(outcome.prompt).id, choice: "allow")

        let export = try await client.export(user: "u42")
        #expect(export.user == "u42" && export.schema.name == "permission-user-export" && export.schema.version == 1)
        let record = try #require(export.consentRecords.first)
        #expect(record.dataCategory == "camera" && record.state == .authorized && record.controller.name == "Maps")
        #expect(record.purpose?.text == "Scans tickets.")
        #expect(export.prompts.count == 1 && export.audit.map(\.entry.action) == ["prompt.created", "prompt.answered"])
        #expect(export.audit.last?.seq == export.head.seq && export.audit.last?.hash == export.head.hash)
        let bytes = try await client.exportDocument(user: "u42")
        /// The same document but for the time it was read at.
        func same(_ bytes: [UInt8]) throws -> Bool {
            var decoded = try WireDecoder.decodeResponse(UserExport.self, from: bytes)
            #expect(decoded.exportedAt >= export.exportedAt)
            decoded.exportedAt = export.exportedAt
            return decoded == export
        }
        #expect(try same(bytes))
        #expect(try await client.export(user: "nobody").consentRecords.isEmpty)

        let printed = try Permctl.run(["users", "export", "u42"], url: server.url, key: server.adminKey)
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(try same(Array(printed.stdout.utf8)))

        let file = server.directory.appendingPathComponent("u42-export.json").path
        let written = try Permctl.run(["users", "export", "u42", "--output", file], url: server.url, key: server.adminKey)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(
            written.stdout.contains("audit entries") && written.stdout.contains("\(export.head.seq) \(export.head.hash)"),
            "\(written.stdout)")
        let saved = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(try same(Array(saved)))
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600, "personal data: readable by its owner only")
        let summary = try Permctl.run(
            ["users", "export", "u42", "--output", file, "--json"], url: server.url, key: server.adminKey)
        #expect(summary.stdout.contains(#""auditEntries":2"#), "\(summary.stdout)")
        // Written under a temporary name made 0600 by open(2) and renamed: a file that was
        // readable by others is replaced, not rewritten in place, and nothing else is left.
        #expect(chmod(file, 0o644) == 0)
        #expect(try Permctl.run(["users", "export", "u42", "--output", file], url: server.url, key: server.adminKey).status == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: server.directory.path).filter { $0.contains(".partial") } == [])

        let unwritable = try Permctl.run(
            ["users", "export", "u42", "--output", "/nonexistent-dir/x.json"], url: server.url, key: server.adminKey)
        #expect(unwritable.status == 73)
        let appKey = try await client.createKey(NewAPIKey(role: .app, app: Self.app, name: "maps")).secret
        let denied = try Permctl.run(["users", "export", "u42"], url: server.url, key: appKey)
        #expect(denied.status == 77)
    }
}
