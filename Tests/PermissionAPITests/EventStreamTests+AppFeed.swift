import Foundation
import HTTPCore
import PermissionAPI
import PermissionDomain
import PermissionWire
import Testing

/// An app key's change feed (SPEC §6 "its own events").
extension EventStreamTests {
    /// The ids of the events in `text`, a raw response (its chunk framing's CRLFs aside).
    static func ids(_ text: String) -> [Int64] {
        text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
            .compactMap { $0.hasPrefix("id: ") ? Int64($0.dropFirst(4)) : nil }
    }

    /// A backend that keeps its cache by its app key's feed learns of every change of what its
    /// status reads return: also a policy for every app and the Location Services switch of its
    /// users, which name no app; not another app's policy, nor the switch of a user it never
    /// asked.
    @Test func anAppKeysFeedHoldsTheChangesThatNameNoApp() throws {
        let live = try Live()
        defer { live.stop() }
        let app = live.app
        let (_, appKey) = try app.storeKey(role: .app, app: "com.example.maps")
        try app.set("camera", #"{"status":"denied"}"#)  // 1: the app's own
        try app.policy("all", #"{"service":"camera","app":null,"user":null,"effect":"restrict"}"#)  // 2
        try app.policy("other", #"{"service":"camera","app":"com.example.other","user":null,"effect":"restrict"}"#)  // 3
        try app.send(.put, "/v1/users/u9/settings", json: #"{"locationServicesEnabled":false}"#)  // 4: a stranger's
        try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":false}"#)  // 5
        #expect(try app.audit().count == 5)
        let client = try StreamClient(
            port: live.server.localPort, request: Self.get("/v1/events", "Last-Event-ID: 0\r\n", key: appKey))
        try client.read(until: "id: 5\n")
        #expect(Self.ids(client.text) == [1, 2, 5], "\(client.text)")
        #expect(client.text.contains("event: policy.put\n") && client.text.contains("event: settings.changed\n"))
        #expect(!client.text.contains("u9"))
        // Live too: the policy's deletion arrives, another app's does not.
        try app.send(.delete, "/v1/policies/other")  // 6
        try app.send(.delete, "/v1/policies/all")  // 7
        try client.read(until: "id: 7\n")
        #expect(Self.ids(client.text) == [1, 2, 5, 7])
        try client.close()

        // An explicit `app` of its own is the same feed; an admin's `app` filter names the app.
        let own = try StreamClient(
            port: live.server.localPort,
            request: Self.get("/v1/events?app=com.example.maps", "Last-Event-ID: 0\r\n", key: appKey))
        try own.read(until: "id: 7\n")
        #expect(Self.ids(own.text) == [1, 2, 5, 7])
        try own.close()
        let admin = try StreamClient(
            port: live.server.localPort, request: live.get("/v1/events?app=com.example.maps", "Last-Event-ID: 0\r\n"))
        try admin.read(until: "id: 1\n")
        #expect(Self.ids(admin.text) == [1])
        try admin.close()
    }
}
