import Foundation
import HTTPCore
import Testing

@testable import PermissionAPI

@Suite struct HealthAndDocumentTests {
    /// The repository's openapi.yaml, found from this file's path.
    static func rootDocument() throws -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return Array(try Data(contentsOf: root.appendingPathComponent("openapi.yaml")))
    }

    @Test func embeddedDocumentEqualsTheRootFileByteForByte() throws {
        let file = try Self.rootDocument()
        #expect(Array(OpenAPIDocument.text.utf8) == file, "the build embeds openapi.yaml (OpenAPIDocumentPlugin)")
    }

    @Test func servesTheDocument() throws {
        let app = try TestApp()
        let response = try app.send(.get, "/openapi.yaml")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/yaml")
        #expect(response.body == (try Self.rootDocument()))
    }

    @Test func healthAndReadiness() throws {
        let app = try TestApp()
        let health = try app.send(.get, "/healthz")
        #expect(health.status == 200)
        #expect(health.text == #"{"status":"ok"}"#)
        let ready = try app.send(.get, "/readyz")
        #expect(ready.status == 200)
        #expect(ready.text == #"{"status":"ready"}"#)
        app.notReady.set(true)
        let notReady = try app.send(.get, "/readyz")
        #expect(notReady.status == 503)
        #expect(notReady.problemType == .unavailable)
        #expect(notReady.headers["Retry-After"] == "1")
        #expect(notReady.problem?.detail.contains("disk on fire") == false, "no internals leak")
    }

    @Test func requestIdIsEchoedAndInProblems() throws {
        let app = try TestApp()
        let response = try app.send(.get, "/v1/nothing-here", headers: [("X-Request-Id", "req-abc")])
        #expect(response.status == 404)
        #expect(response.headers["X-Request-Id"] == "req-abc")
        #expect(response.problem?.requestId == "req-abc")
        #expect(response.problemType == .notFound)
    }

    @Test func openRoutesNeedNoKeyAndV1RoutesDo() throws {
        let app = try TestApp()
        #expect(try app.send(.get, "/healthz", headers: [("Authorization", "")]).status == 200)
        #expect(try app.send(.get, "/openapi.yaml", headers: [("Authorization", "")]).status == 200)
        #expect(try app.send(.get, "/v1/keys", headers: [("Authorization", "")]).status == 401)
    }
}
