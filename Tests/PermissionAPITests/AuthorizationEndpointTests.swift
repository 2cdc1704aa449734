import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// The hot path and conditional requests (SPEC §3 ETag; RFC 9110 §13.1).
@Suite struct AuthorizationEndpointTests {
    static let camera = TestApp.path("u42", "com.example.maps", "camera")

    @Test func neverWrittenIsNotDeterminedVersionZero() throws {
        let app = try TestApp()
        let response = try app.send(.get, Self.camera)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        let authorization = try response.decode(Authorization.self)
        #expect(authorization.status == .notDetermined)
        #expect(authorization.reason == .default)
        #expect(authorization.version == 0)
        #expect(authorization.level == nil)
        #expect(authorization.updatedAt == Date(timeIntervalSince1970: 0))
        #expect(response.text.contains(#""purpose":null"#))
        #expect(response.headers["ETag"]?.hasPrefix("\"0-") == true)
    }

    @Test func hotPathBodyIsTheWireEncoding() throws {
        let app = try TestApp()
        try app.registerApp()
        #expect(try app.set("camera", #"{"status":"authorized","level":"full"}"#).status == 200)
        let response = try app.send(.get, Self.camera)
        let decoded = try response.decode(Authorization.self)
        #expect(decoded.status == .authorized)
        #expect(response.body == (try WireEncoder.encode(decoded)))
    }

    @Test func ifNoneMatchGives304UntilTheRepresentationChanges() throws {
        let app = try TestApp()
        let first = try app.send(.get, Self.camera)
        let etag = try #require(first.headers["ETag"])
        // A cache may keep it but asks again before using it: no revoked grant from a cache.
        #expect(first.headers["Cache-Control"] == "no-cache")
        let cached = try app.send(.get, Self.camera, headers: [("If-None-Match", etag)])
        #expect(cached.status == 304)
        #expect(cached.body.isEmpty)
        #expect(cached.headers["ETag"] == etag && cached.headers["Cache-Control"] == "no-cache")
        #expect(try app.send(.get, Self.camera, headers: [("If-None-Match", "W/" + etag)]).status == 304)
        #expect(try app.send(.get, Self.camera, headers: [("If-None-Match", "\"other\", " + etag)]).status == 304)
        #expect(try app.send(.get, Self.camera, headers: [("If-None-Match", "*")]).status == 304)
        #expect(try app.send(.get, Self.camera, headers: [("If-None-Match", "\"other\"")]).status == 200)
        #expect(try app.send(.get, Self.camera, headers: [("If-None-Match", "garbage")]).status == 400)
        // If-Match first (RFC 9110 §13.2.2), compared strongly: a read the client means only for
        // the version it holds is refused once that changed.
        #expect(try app.send(.get, Self.camera, headers: [("If-Match", etag)]).status == 200)
        #expect(try app.send(.get, Self.camera, headers: [("If-Match", "*")]).status == 200)
        let stale = try app.send(.get, Self.camera, headers: [("If-Match", "\"other\""), ("If-None-Match", etag)])
        #expect(stale.status == 412 && stale.problemType == .preconditionFailed, "\(stale.text)")
        #expect(try app.send(.get, Self.camera, headers: [("If-Match", "W/" + etag)]).status == 412)
        #expect(try app.send(.get, Self.camera, headers: [("If-Match", "garbage")]).status == 400)
        #expect(try app.send(.head, Self.camera, headers: [("If-Match", "\"other\"")]).status == 412)
        // A resource without entity-tags: only If-Match: * can hold.
        #expect(try app.send(.get, "/v1/services/camera", headers: [("If-Match", "\"x\"")]).status == 412)
        #expect(try app.send(.get, "/v1/services/camera", headers: [("If-Match", "*")]).status == 200)
        // A policy changes the effective status without changing the stored version: new ETag.
        try app.policy("no-camera", #"{"service":"camera","app":null,"user":"u42","effect":"restrict"}"#)
        let after = try app.send(.get, Self.camera, headers: [("If-None-Match", etag)])
        #expect(after.status == 200)
        #expect(after.headers["ETag"] != etag)
        #expect(try after.decode(Authorization.self).version == 0)
    }

    @Test func ifMatchOnSettings() throws {
        let app = try TestApp()
        try app.registerApp()
        let etag = try #require(try app.send(.get, Self.camera).headers["ETag"])
        let first = try app.set("camera", #"{"status":"denied"}"#, headers: [("If-Match", etag)])
        #expect(first.status == 200)
        let newTag = try #require(first.headers["ETag"])
        #expect(newTag != etag)
        let seq = try app.lastSeq()
        let stale = try app.set("camera", #"{"status":"authorized","level":"full"}"#, headers: [("If-Match", etag)])
        #expect(stale.status == 412)
        #expect(stale.problemType == .preconditionFailed)
        #expect(try app.lastSeq() == seq)
        #expect(try app.authorization("camera").status == .denied)
        let weak = try app.set("camera", #"{"status":"authorized","level":"full"}"#, headers: [("If-Match", "W/" + newTag)])
        #expect(weak.status == 412, "If-Match uses the strong comparison")
        let star = try app.set("camera", #"{"status":"authorized","level":"full"}"#, headers: [("If-Match", "*")])
        #expect(star.status == 200)
        #expect(try app.authorization("camera").status == .authorized)
        #expect(try app.set("camera", #"{"status":"denied"}"#, headers: [("If-Match", "nope")]).status == 400)
    }

    @Test func revokeHonoursIfMatch() throws {
        let app = try TestApp()
        try app.registerApp()
        let granted = try app.grant("camera", "full", "allow")
        #expect(granted.status == .authorized)
        let seq = try app.lastSeq()
        let stale = try app.send(.post, Self.camera + "/revoke", headers: [("If-Match", "\"1-0000000000000000\"")])
        #expect(stale.status == 412)
        #expect(try app.lastSeq() == seq)
        let etag = try #require(try app.send(.get, Self.camera).headers["ETag"])
        let revoked = try app.send(.post, Self.camera + "/revoke", headers: [("If-Match", etag)])
        #expect(revoked.status == 200)
        let authorization = try revoked.decode(Authorization.self)
        #expect(authorization.status == .denied)
        #expect(authorization.reason == .userSet)
        #expect(revoked.headers["ETag"] != etag)
        let entry = try #require(try app.audit("after=\(seq)").last)
        #expect(entry.action == "authorization.revoked")
        #expect(entry.actor.role == "admin")
        #expect(entry.actor.keyId == app.adminKeyId)
        #expect(entry.requestId?.hasPrefix("test-") == true)
    }

    @Test func writesCarryTheRequestIdIntoTheAudit() throws {
        let app = try TestApp()
        try app.set("camera", #"{"status":"denied"}"#, headers: [("X-Request-Id", "req-settings-1")])
        let entry = try #require(try app.audit().last)
        #expect(entry.requestId == "req-settings-1")
        #expect(entry.action == "authorization.set")
        #expect(entry.from?.status == .notDetermined)
        #expect(entry.to?.status == .denied)
    }

    @Test func headAnswersLikeGetWithoutBody() throws {
        let app = try TestApp()
        let response = try app.send(.head, Self.camera)
        #expect(response.status == 200)
        #expect(response.headers["ETag"] != nil)
    }
}
