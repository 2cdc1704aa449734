import Foundation
import HTTPCore
import PermissionAPI
import Testing

/// Every operation of openapi.yaml is routed, except those that come with access control.
@Suite struct RouteTableTests {
    /// Not routed yet: keys and audit verification (access control), and metrics.
    static let later: Set<String> = ["GET /metrics"]

    /// (method, path template) of every operation, read from the document's `paths:` section.
    static func operations() throws -> [(String, String)] {
        let text = String(decoding: try HealthAndDocumentTests.rootDocument(), as: UTF8.self)
        var operations: [(String, String)] = []
        var inPaths = false
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if !line.hasPrefix(" "), !line.isEmpty { break }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
                if ["GET", "PUT", "POST", "DELETE", "PATCH"].contains(method) { operations.append((method, path)) }
            }
        }
        return operations
    }

    @Test func everyDocumentedOperationIsRouted() throws {
        let operations = try Self.operations()
        #expect(operations.count >= 30)
        let app = try TestApp()
        let samples = ["{user}": "u42", "{app}": "com.example.maps", "{service}": "camera", "{id}": "x1"]
        for (method, template) in operations {
            var target = template
            for (name, value) in samples { target = target.replacingOccurrences(of: name, with: value) }
            let key = "\(method) \(template)"
            // Streams would not end in-process; their routing is covered by EventStreamTests.
            if template == "/v1/events" { continue }
            let response = try app.send(HTTPMethod(method), target, json: method == "GET" || method == "DELETE" ? nil : "{}")
            let unrouted =
                response.status == 405 || (response.status == 404 && response.problem?.detail.contains("No route") == true)
            if Self.later.contains(key) {
                #expect(unrouted, "\(key) comes with access control")
            } else {
                #expect(!unrouted, "\(key) is documented but not routed: \(response.status)")
            }
        }
    }

    /// Where each operation runs (`HTTPExecution`): single-item reads and the submitted settings
    /// change and revocation inline on the event loop; other writes, listings, scans and probes on the worker queue, so none of them holds up the
    /// other connections of a loop. On PostgreSQL every read may wait, so all of them run on
    /// the worker queue here (no key in the request, nothing cached).
    @Test func readsOfOneItemRunInlineAndEverythingThatMayTakeLongOnTheWorkerQueue() throws {
        let responder = try TestApp().application.responder
        let inline: Set<String> = [
            "GET /healthz", "GET /openapi.yaml", "GET /v1/services", "GET /v1/services/{service}",
            "GET /v1/apps/{app}", "GET /v1/policies/{id}", "GET /v1/prompts/{id}",
            "GET /v1/users/{user}/apps/{app}/authorizations/{service}", "GET /v1/users/{user}/settings",
            "GET /v1/keys", "GET /v1/keys/{id}", "GET /v1/consent-sessions/{id}",
            // AuthZEN evaluations are the status read asked in a body; the metadata is static.
            "POST /access/v1/evaluation", "POST /access/v1/evaluations", "GET /.well-known/authzen-configuration",
            // On SQLite a settings change is checked on the loop and handed to the writer, and
            // answered when the writer's completion comes (`HTTPDeferredResponse`): no thread waits.
            "PUT /v1/users/{user}/apps/{app}/authorizations/{service}",
            "POST /v1/users/{user}/apps/{app}/authorizations/{service}/revoke",
        ]
        let samples = ["{user}": "u42", "{app}": "com.example.maps", "{service}": "camera", "{id}": "x1"]
        var seen = 0
        for (method, template) in try Self.operations() {
            var path = template
            for (name, value) in samples { path = path.replacingOccurrences(of: name, with: value) }
            let head = HTTPRequestHead(
                method: HTTPMethod(method), target: path, path: path, query: nil, version: .http1_1,
                headers: HTTPHeaders([("Host", "test")]), authority: "test", keepAlive: true, framing: .none,
                expectContinue: false)
            let key = "\(method) \(template)"
            if Self.later.contains(key) { continue }  // not routed in this configuration
            // On a store whose reads may wait on the network (PostgreSQL) every read runs on the
            // worker queue unless it is answered from memory (ConsistencyTests).
            let expected: HTTPExecution = inline.contains(key) && TestApp.onSQLite ? .eventLoop : .worker
            var context = RequestContext(requestId: "r", logger: quietLogger, remoteAddress: "127.0.0.1:1")
            #expect(responder.prepare(head, context: &context) == expected, "\(key)")
            if inline.contains(key) { seen += 1 }
        }
        #expect(seen == inline.count, "every inline operation is documented")
    }
}
