import Foundation
import HTTPCore
import PermissionAPI
import PermissionDomain
import Testing

/// SPEC §6, every cell: each documented operation × each kind of caller → allowed (any status
/// but 401/403), 403 or 401. The operations come from openapi.yaml, so a new route without a
/// row here fails `everyOperationHasARow`.
@Suite struct AccessMatrixTests {
    /// The callers, in the order of the row strings.
    enum Caller: String, CaseIterable {
        case admin, consent, appOwn, appOther, auditor, noKey, revoked
    }

    /// "METHOD template" → the expectation for admin, consent, app (own app), app (other
    /// app), auditor: `A` allowed, `F` 403. Without a key or with a revoked key every `/v1`
    /// call is 401; the open routes are allowed for everyone.
    static let matrix: [String: String] = [
        "GET /v1/services": "AAFFF",
        "GET /v1/services/{service}": "AAFFF",
        "PUT /v1/services/{service}": "AFFFF",
        "GET /v1/apps": "AAFFF",
        "GET /v1/apps/{app}": "AAFFF",
        "PUT /v1/apps/{app}": "AFFFF",
        "GET /v1/users/{user}/authorizations": "AAFFF",
        "GET /v1/apps/{app}/services/{service}/users": "AAAFF",
        "GET /v1/apps/{app}/purpose-changed": "AAAFF",
        "GET /v1/users/{user}/apps/{app}/authorizations/{service}": "AAAFF",
        "PUT /v1/users/{user}/apps/{app}/authorizations/{service}": "AAFFF",
        "POST /v1/users/{user}/apps/{app}/authorizations/{service}/request": "AFAFF",
        "POST /v1/users/{user}/apps/{app}/authorizations/{service}/button": "AFAFF",
        "POST /v1/users/{user}/apps/{app}/authorizations/{service}/revoke": "AAFFF",
        "GET /v1/users/{user}/prompts": "AAFFF",
        "GET /v1/prompts/{id}": "AAFFF",
        "POST /v1/prompts/{id}/decision": "AAFFF",
        "POST /v1/users/{user}/apps/{app}/lifecycle": "AAAFF",
        "GET /v1/users/{user}/settings": "AAFFF",
        "PUT /v1/users/{user}/settings": "AAFFF",
        "GET /v1/users/{user}/export": "AAFFF",
        "GET /v1/policies": "AAFFF",
        "GET /v1/policies/{id}": "AAFFF",
        "PUT /v1/policies/{id}": "AFFFF",
        "DELETE /v1/policies/{id}": "AFFFF",
        "POST /v1/reset": "AFFFF",
        "GET /v1/audit": "AFFFA",
        "GET /v1/audit/verify": "AFFFA",
        // With ?app= of the own app: another app's key asks for foreign events.
        "GET /v1/events": "AFAFA",
        "GET /v1/keys": "AFFFF",
        "POST /v1/keys": "AFFFF",
        "GET /v1/keys/{id}": "AFFFF",
        "DELETE /v1/keys/{id}": "AFFFF",
        "POST /v1/users/{user}/consent-sessions": "AAFFF",
        "GET /v1/consent-sessions/{id}": "AAFFF",
        "DELETE /v1/consent-sessions/{id}": "AAFFF",
        "DELETE /v1/users/{user}": "AAFFF",
        // The app is named in the body (a sample naming com.example.maps): checked per item.
        "POST /access/v1/evaluation": "AAAFF",
        "POST /access/v1/evaluations": "AAAFF",
        "GET /.well-known/authzen-configuration": "AAAAA",
        "GET /healthz": "AAAAA",
        "GET /readyz": "AAAAA",
        "GET /openapi.yaml": "AAAAA",
    ]
    /// Documented, but not on the API router of `buildApplication` without metrics.
    static let unrouted: Set<String> = ["GET /metrics"]

    @Test func everyOperationHasARow() throws {
        for (method, template) in try RouteTableTests.operations() {
            let key = "\(method) \(template)"
            #expect(Self.matrix[key] != nil || Self.unrouted.contains(key), "no access-matrix row for \(key)")
        }
    }

    /// The matrix as the domain states it agrees with the rows (the table in docs/access-control.md is both).
    @Test func matrixRowsAgreeWithTheDomainTable() {
        #expect(AccessMatrix.grant(.admin, .admin) == .granted)
        #expect(AccessMatrix.grant(.app, .requestAccess) == .ownApp)
        #expect(AccessMatrix.grant(.consent, .requestAccess) == .denied)
        #expect(AccessMatrix.grant(.auditor, .readEvents) == .granted)
        #expect(AccessMatrix.mayPost(.sessionEnded, as: .app))
        #expect(AccessMatrix.mayPost(.reinstalled, as: .app))
        #expect(!AccessMatrix.mayPost(.backgroundLocationUsed, as: .app))
        #expect(AccessMatrix.mayPost(.backgroundLocationUsed, as: .consent))
        #expect(!AccessMatrix.mayPost(.sessionEnded, as: .auditor))
    }

    struct Cell: CustomTestStringConvertible, Sendable {
        let method: String
        let template: String
        var testDescription: String { "\(method) \(template)" }
    }

    static let cells: [Cell] = {
        (try? RouteTableTests.operations())?.map { Cell(method: $0.0, template: $0.1) } ?? []
    }()

    /// The cells come from the OpenAPI document: one that could not be read would leave the
    /// test below with no arguments, run zero times.
    @Test func everyOperationHasACell() throws {
        #expect(Self.cells.count == (try RouteTableTests.operations()).count)
        #expect(Self.cells.count > 40)
    }

    @Test(arguments: cells) func everyCallerGetsTheExpectedClass(_ cell: Cell) throws {
        let key = "\(cell.method) \(cell.template)"
        if Self.unrouted.contains(key) { return }
        let row = try #require(Self.matrix[key], "no row for \(key)")
        let app = try TestApp()
        let secrets: [Caller: String] = [
            .admin: app.adminKey,
            .consent: try app.storeKey(role: .consent).secret,
            .appOwn: try app.storeKey(role: .app, app: "com.example.maps").secret,
            .appOther: try app.storeKey(role: .app, app: "com.example.other").secret,
            .auditor: try app.storeKey(role: .auditor).secret,
            .revoked: try app.storeKey(role: .admin, revoked: true).secret,
        ]
        let samples = ["{user}": "u42", "{app}": "com.example.maps", "{service}": "camera", "{id}": "x1"]
        var target = cell.template
        for (name, value) in samples { target = target.replacingOccurrences(of: name, with: value) }
        if cell.template == "/v1/events" { target += "?app=com.example.maps" }
        let open = !cell.template.hasPrefix("/v1/") && !cell.template.hasPrefix("/access/")
        // An AuthZEN evaluation names its app in the body.
        let evaluation =
            #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}"#
        for (index, caller) in Caller.allCases.enumerated() {
            let expected: Character = index < 5 ? Array(row)[index] : (open ? "A" : "U")
            // An allowed event stream would not end in-process; EventStreamTests covers it.
            if cell.template == "/v1/events", expected == "A" { continue }
            let authorization = secrets[caller].map { "Bearer \($0)" } ?? ""
            let response = try app.send(
                HTTPMethod(cell.method), target,
                json: cell.method == "GET" || cell.method == "DELETE" ? nil : target.hasPrefix("/access/") ? evaluation : "{}",
                headers: [("Authorization", authorization)], remote: "10.0.0.\(index):1")
            switch expected {
            case "A":
                #expect(
                    ![401, 403, 429].contains(response.status) && response.status < 500,
                    "\(key) as \(caller): \(response.status) \(response.text)")
            case "F":
                #expect(response.status == 403, "\(key) as \(caller): \(response.status) \(response.text)")
                #expect(response.problem?.type.hasSuffix("/forbidden") == true)
            default:
                #expect(response.status == 401, "\(key) as \(caller): \(response.status) \(response.text)")
                #expect(response.headers["WWW-Authenticate"]?.hasPrefix("Bearer realm=\"permissions\"") == true)
            }
        }
    }
}
