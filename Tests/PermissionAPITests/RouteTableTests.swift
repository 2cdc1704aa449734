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
            if line == "paths:" { inPaths = true; continue }
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
            let unrouted = response.status == 405 || (response.status == 404 && response.problem?.detail.contains("No route") == true)
            if Self.later.contains(key) {
                #expect(unrouted, "\(key) comes with access control")
            } else {
                #expect(!unrouted, "\(key) is documented but not routed: \(response.status)")
            }
        }
    }
}
