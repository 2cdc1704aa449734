import Foundation
import PermissionClient
import PermissionWire
import TestProcesses
import TestThreads
import Testing

/// Every SDK call against the real `permission-server` (spawned on 127.0.0.1 port 0 with a
/// fresh database), including the failures it produces: 404, 422, 400, 412, and the server
/// going down.
@Suite("PermissionClient against the real server", .serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct LiveServerTests {
    static let app = "com.example.maps"
    static let whenInUseKey = "NSLocationWhenInUseUsageDescription"
    static let alwaysKey = "NSLocationAlwaysAndWhenInUseUsageDescription"

    /// A client of `server` with `key`, by default the bootstrapped admin key.
    static func client(_ server: LiveServer, key: String? = nil) throws -> PermissionClient {
        try PermissionClient(
            configuration: .init(
                baseURL: server.url, apiKey: key ?? server.adminKey, timeout: .seconds(10),
                retry: RetryPolicy(baseDelay: .milliseconds(20))))
    }

    @Test func consentFlowAndReads() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try Self.client(server)
        let value1 = try await client.health().status
        #expect(value1 == "ok")
        let value2 = try await client.ready().status
        #expect(value2 == "ready")
        let catalogue = try await client.services()
        #expect(catalogue.items.contains { $0.id == "location" } && catalogue.items.count >= 14)
        let value3 = try await client.service("location").levels
        #expect(value3 == ["whenInUse", "always"])
        let app = try await client.registerApp(
            Self.app, name: "Maps",
            purposeStrings: [
                Self.whenInUseKey: "Shows nearby stops.", Self.alwaysKey: "Alerts you near your stop.",
            ])
        #expect(app.purposeStrings.count == 2)
        let value4 = try await client.app(Self.app).name
        #expect(value4 == "Maps")
        let value5 = try await client.apps().items.map(\.id)
        #expect(value5 == [Self.app])

        let value6 = try await client.status(user: "u42", app: Self.app, service: "location")
        #expect(value6 == .notDetermined)
        let outcome = try await client.requestAccess(user: "u42", app: Self.app, service: "location", level: "whenInUse")
        let prompt = try #require(outcome.prompt)
        #expect(prompt.options == ["allowOnce", "allowWhileUsing", "deny"])
        let value7 = try await client.prompts(user: "u42", state: .pending).items.map(\.id)
        #expect(value7 == [prompt.id])
        let value8 = try await client.prompt(id: prompt.id).purpose
        #expect(value8 == "Shows nearby stops.")
        let decided = try await client.decide(prompt: prompt.id, choice: "allowWhileUsing")
        #expect(decided.authorization.status == .authorized && decided.prompt.state == .answered)
        let value9 = try await client.status(user: "u42", app: Self.app, service: "location")
        #expect(value9 == .authorized(level: "whenInUse"))

        let read = try await client.send(Endpoints.authorization(user: "u42", app: Self.app, service: "location"))
        let etag = try #require(read.etag)
        #expect(read.requestId.hasPrefix("pc-"))
        let changed = try await client.setAuthorization(
            user: "u42", app: Self.app, service: "location", SettingsChange(status: .authorized, level: "always"), ifMatch: etag)
        #expect(changed.level == "always" && changed.reason == .userSet)
        do {
            _ = try await client.revoke(user: "u42", app: Self.app, service: "location", ifMatch: etag)
            Issue.record("a stale If-Match must fail")
        } catch {
            #expect(error.status == 412 && error.problemType == .preconditionFailed)
        }
        let value10 = try await client.revoke(user: "u42", app: Self.app, service: "location").status
        #expect(value10 == .denied)
        let value11 = try await client.authorizations(user: "u42").items.map(\.service)
        #expect(value11 == ["location"])
        let value12 = try await client.authorizations(app: Self.app, service: "location", status: .denied).items.map(\.user)
        #expect(value12 == ["u42"])
        let value13 = try await client.lifecycle(user: "u42", app: Self.app, event: .sessionEnded).changed.isEmpty
        #expect(value13)
        let value14 = try await client.settings(user: "u42").locationServicesEnabled
        #expect(value14)
        let value15 = try await client.setSettings(user: "u42", UserSettings(locationServicesEnabled: false))
            .locationServicesEnabled
        #expect(value15 == false)
        let value16 = try await client.status(user: "u42", app: Self.app, service: "location")
        #expect(value16 == .denied)
    }

    /// `.` and `..` are user ids (SPEC §1: 1-128 of `A-Z a-z 0-9 . _ : @ + -`); in a path they
    /// would be dot-segments, which libcurl removes before sending, so that `users erase ..`
    /// would have sent `DELETE /v1/`. Every call naming such a user reaches that user. A `+`
    /// (an e-mail address's tag) goes as `%2B`, in the path and in a query, where the server
    /// reads a bare `+` as a space.
    @Test(arguments: [".", "..", "...", "ann+tag@example.com"])
    func dotSegmentUserIdsReachTheirUser(user: String) async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try Self.client(server)
        _ = try await client.registerApp(Self.app, name: "Maps", purposeStrings: ["NSCameraUsageDescription": "Scan tickets."])
        let set = try await client.setAuthorization(
            user: user, app: Self.app, service: "camera", SettingsChange(status: .denied))
        #expect(set.user == user)
        let value = try await client.status(user: user, app: Self.app, service: "camera")
        #expect(value == .denied)
        let listed = try await client.authorizations(user: user).items.map(\.user)
        #expect(listed == [user])
        let export = try await client.export(user: user)
        #expect(export.user == user)
        let entries = try await client.audit(AuditQuery(user: user)).items
        #expect(!entries.isEmpty && entries.allSatisfy { $0.user == user }, "\(entries)")
        let erased = try await client.eraseUser(user)
        #expect(erased.authorizations == 1)
        let after = try await client.status(user: user, app: Self.app, service: "camera")
        #expect(after == .notDetermined)
        let other = try await client.status(user: "u1", app: Self.app, service: "camera")
        #expect(other == .notDetermined)
    }

    @Test func operatorCalls() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try Self.client(server)
        let custom = try await client.putService(
            "fitness",
            ServiceRegistration(
                levels: ["read", "write"],
                purposeKeys: ["read": ["NSFitnessReadUsageDescription"], "write": ["NSFitnessWriteUsageDescription"]]))
        #expect(custom.builtin == false)
        let policy = try await client.putPolicy(
            id: "no-camera-u42", PolicyDefinition(service: "camera", user: "u42", effect: .restrict))
        #expect(policy.user == "u42" && policy.app == nil)
        let value17 = try await client.policy(id: "no-camera-u42").effect
        #expect(value17 == .restrict)
        let value18 = try await client.policies().items.map(\.id)
        #expect(value18 == ["no-camera-u42"])
        let value19 = try await client.status(user: "u42", app: Self.app, service: "camera")
        #expect(value19 == .restricted)
        try await client.deletePolicy(id: "no-camera-u42")
        let value20 = try await client.policies().items.isEmpty
        #expect(value20)

        _ = try await client.registerApp(Self.app, name: "Maps", purposeStrings: ["NSCameraUsageDescription": "Scan tickets."])
        _ = try await client.requestAccess(user: "u1", app: Self.app, service: "camera", level: "full")
        let value21 = try await client.reset(service: "camera", app: Self.app)
        #expect(value21 == 1)
        let page = try await client.audit(AuditQuery(app: Self.app, limit: 100))
        #expect(page.items.map(\.seq) == page.items.map(\.seq).sorted() && !page.items.isEmpty)
        #expect(page.items.contains { $0.action == "prompt.created" })
        let value22 = try await client.openAPIDocument().hasPrefix("openapi: 3.1")
        #expect(value22)

        // A consent link, and its session ended: the link then opens nothing (410).
        let link = try await client.createConsentSession(user: "u42")
        #expect(link.url.hasPrefix("/consent/start?token=") && link.expiresAt > Date(), "\(link)")
        let unopened = try await client.consentSession(id: link.id)
        #expect(unopened.state == .unopened && unopened.user == "u42" && unopened.expiresAt == link.expiresAt)
        try await client.deleteConsentSession(id: link.id)
        let ended = try await client.consentSession(id: link.id)
        #expect(ended.state == .ended && ended.endedAt != nil)
        let opened = try ChildProcess.run(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", server.url + link.url], timeout: 20)
        #expect(opened.standardOutput == "410", "\(opened.standardOutput)")

        var feed = client.events(after: 0, filter: AuditQuery(app: Self.app)).makeAsyncIterator()
        let first = try #require(try await feed.next())
        #expect(first.app == Self.app)
    }

    @Test func keysRolesAndRefusedKeys() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try Self.client(server)
        let issued = try await client.createKey(NewAPIKey(role: .auditor, name: "client-tests"))
        #expect(try await client.keys().items.contains { $0.id == issued.key.id && $0.role == .auditor })
        #expect(try await client.key(id: issued.key.id) == issued.key)
        let auditor = try Self.client(server, key: issued.secret)
        _ = try await auditor.audit()
        // 403: outside the auditor's role.
        do {
            _ = try await auditor.reset(service: "all")
            Issue.record("an auditor may not reset")
        } catch {
            #expect(error.status == 403 && error.problemType == .forbidden && error.isAccessDenied)
        }
        // 401: a key the server does not know, and no key at all.
        for key in ["pk_0000000000000000_" + String(repeating: "A", count: 43), ""] {
            let stranger = try PermissionClient(configuration: .init(baseURL: server.url, apiKey: key.isEmpty ? nil : key))
            do {
                _ = try await stranger.audit()
                Issue.record("an unknown key must be refused")
            } catch {
                #expect(error.status == 401 && error.problemType == .unauthorized && error.isAccessDenied)
            }
        }
        try await client.deleteKey(id: issued.key.id)
        await #expect(throws: PermissionClientError.self) { _ = try await auditor.audit() }
        do {
            _ = try await client.key(id: issued.key.id)
            Issue.record("a revoked key is not found")
        } catch {
            #expect(error.status == 404)
        }
    }

    @Test func auditVerifyAndMetrics() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try Self.client(server)
        #expect(try await client.verifyAudit().valid)
        #expect(try await client.metrics().contains("# TYPE"))
    }

    @Test func serverErrorsAreTyped() async throws {
        let server = try LiveServer()
        defer { server.stop() }
        let client = try Self.client(server)
        // 404: a service the catalogue lacks.
        do {
            _ = try await client.status(user: "u42", app: Self.app, service: "teleport")
            Issue.record("expected 404")
        } catch {
            #expect(error.status == 404 && error.problemType == .unknownService)
            #expect(error.requestId?.hasPrefix("pc-") == true)
        }
        // 422: the app registered no purpose string for location.
        do {
            _ = try await client.requestAccess(user: "u42", app: "com.example.none", service: "location", level: "always")
            Issue.record("expected 422")
        } catch {
            guard case .http(422, let problem?, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(problem.problemType == .missingPurposeString && problem.key != nil)
        }
        // 400: a malformed app id.
        await #expect(throws: PermissionClientError.self) {
            _ = try await client.authorization(user: "u42", app: "nodots", service: "location")
        }
    }

    @Test func serverGoingDownIsATransportError() async throws {
        let server = try LiveServer()
        let client = try PermissionClient(
            configuration: .init(
                baseURL: server.url, apiKey: server.adminKey, retry: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10))))
        let value26 = try await client.health().status
        #expect(value26 == "ok")
        server.stop()
        do {
            _ = try await client.status(user: "u42", app: Self.app, service: "location")
            Issue.record("expected a transport failure")
        } catch {
            guard case .transport(let code, _, let requestId) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect([7, 52, 56].contains(code))
            #expect(requestId != nil)
        }
    }
}
