import Foundation
import HTTPCore
import PermissionWire
import Testing

/// `If-Match` and `If-None-Match` on every write (RFC 9110 §13.1.1-2, §13.2): an authorization's
/// entity-tags both ways; `*` on the resources without entity-tags (policies, apps, custom
/// services: create only, or update only, decided in the write's transaction); entity-tags
/// where a resource has none never match. A refused write changes nothing.
@Suite struct ConditionalWriteTests {
    static let restrict = #"{"service":"camera","app":null,"user":"u42","effect":"restrict"}"#

    /// A 412 `precondition-failed` that wrote nothing.
    static func expectRefused(_ app: TestApp, _ response: TestResponse, seq: Int64, _ comment: Comment? = nil) throws {
        #expect(response.status == 412 && response.problemType == .preconditionFailed, "\(response.text)")
        #expect(try app.lastSeq() == seq, "nothing written")
    }

    @Test func starPreconditionsCreateOnlyOrUpdateOnlyAPolicyAnAppAndAService() throws {
        let app = try TestApp()
        let absent = [("If-None-Match", "*")]
        let present = [("If-Match", "*")]
        var seq = try app.lastSeq()
        try Self.expectRefused(app, try app.send(.put, "/v1/policies/p1", json: Self.restrict, headers: present), seq: seq)
        #expect(try app.send(.put, "/v1/policies/p1", json: Self.restrict, headers: absent).status == 201)
        seq = try app.lastSeq()
        let again = try app.send(.put, "/v1/policies/p1", json: Self.restrict, headers: absent)
        try Self.expectRefused(app, again, seq: seq)
        #expect(again.problem?.detail.contains("policy p1") == true, "\(again.text)")
        #expect(try app.send(.put, "/v1/policies/p1", json: Self.restrict, headers: present).status == 200)
        // Deleting with If-None-Match: * never holds for a policy that is there; one that is not is 404.
        try Self.expectRefused(app, try app.send(.delete, "/v1/policies/p1", headers: absent), seq: seq)
        #expect(try app.send(.get, "/v1/policies/p1").status == 200)
        #expect(try app.send(.delete, "/v1/policies/p2", headers: absent).status == 404)

        let registration = #"{"name":"Maps","purposeStrings":{"NSCameraUsageDescription":"Scans tickets."}}"#
        try Self.expectRefused(
            app, try app.send(.put, "/v1/apps/com.example.maps", json: registration, headers: present), seq: seq)
        #expect(try app.send(.put, "/v1/apps/com.example.maps", json: registration, headers: absent).status == 201)
        seq = try app.lastSeq()
        try Self.expectRefused(
            app, try app.send(.put, "/v1/apps/com.example.maps", json: registration, headers: absent), seq: seq)

        let service = #"{"levels":["read"],"purposeKeys":{"read":["NSHealthShareUsageDescription"]}}"#
        try Self.expectRefused(app, try app.send(.put, "/v1/services/healthRecords", json: service, headers: present), seq: seq)
        #expect(try app.send(.put, "/v1/services/healthRecords", json: service, headers: absent).status == 201)
        seq = try app.lastSeq()
        try Self.expectRefused(app, try app.send(.put, "/v1/services/healthRecords", json: service, headers: absent), seq: seq)
        // The same definition again is no change: no second entry (as for apps and policies).
        #expect(try app.send(.put, "/v1/services/healthRecords", json: service).status == 200)
        #expect(try app.lastSeq() == seq)
    }

    @Test func entityTagsWhereAResourceHasNoneNeverMatch() throws {
        let app = try TestApp()
        let seq = try app.lastSeq()
        for (method, target, json) in [
            (HTTPMethod.put, "/v1/policies/p1", Self.restrict), (.delete, "/v1/policies/p1", nil),
            (.put, "/v1/users/u42/settings", #"{"locationServicesEnabled":false}"#),
            (.post, "/v1/reset", #"{"service":"all"}"#), (.post, "/v1/keys", #"{"role":"admin","name":"ops"}"#),
            (.delete, "/v1/users/u42", nil),
        ] {
            let refused = try app.send(method, target, json: json, headers: [("If-Match", #""1-abc""#)])
            try Self.expectRefused(app, refused, seq: seq)
            #expect(refused.problem?.detail.contains("has none") == true, "\(target): \(refused.text)")
        }
        // If-None-Match with entity-tags holds (none matches): the write goes on.
        #expect(
            try app.send(.put, "/v1/policies/p1", json: Self.restrict, headers: [("If-None-Match", #""1-abc""#)]).status == 201)
        // Settings: every user has them (the defaults until set), so If-None-Match: * never holds.
        let settings = #"{"locationServicesEnabled":false}"#
        let seqAfter = try app.lastSeq()
        try Self.expectRefused(
            app, try app.send(.put, "/v1/users/u42/settings", json: settings, headers: [("If-None-Match", "*")]), seq: seqAfter)
        #expect(try app.send(.put, "/v1/users/u42/settings", json: settings, headers: [("If-Match", "*")]).status == 200)
    }

    /// A request refused on its own (a body that is missing, malformed or breaks a rule, a
    /// restricted authorization) is answered so whatever its preconditions: they are evaluated
    /// only for a request that would succeed (RFC 9110 §13.2.1).
    @Test func aRequestRefusedOnItsOwnIsAnsweredSoWhateverItsPreconditions() throws {
        let app = try TestApp()
        let both = [("If-Match", "*"), ("If-None-Match", "*")]
        #expect(try app.send(.put, "/v1/users/u42/settings", headers: [("If-None-Match", "*")]).status == 415)
        let allowWithoutLevel = #"{"service":"camera","app":null,"user":null,"effect":"allow","level":null}"#
        #expect(try app.send(.put, "/v1/policies/p1", json: allowWithoutLevel, headers: both).status == 422)
        #expect(try app.send(.put, "/v1/apps/com.example.maps", json: #"{"name":""}"#, headers: both).status == 400)
        let stale = [("If-Match", #""9-stale""#)]
        #expect(try app.set("camera", #"{"status":"authorized","level":"always"}"#, headers: stale).status == 422)
        try app.policy("no-camera", #"{"service":"camera","app":null,"user":"u42","effect":"restrict"}"#)
        #expect(try app.set("camera", #"{"status":"denied"}"#, headers: stale).status == 409)
    }

    @Test func anAuthorizationsWritesRefuseAnIfNoneMatchThatNamesItsCurrentTag() throws {
        let app = try TestApp()
        let path = TestApp.path("u42", "com.example.maps", "camera")
        let seq = try app.lastSeq()
        // A record never written has a representation too (notDetermined): `*` never holds.
        try Self.expectRefused(app, try app.set("camera", #"{"status":"denied"}"#, headers: [("If-None-Match", "*")]), seq: seq)
        let etag = try #require(try app.send(.get, path).headers["ETag"])
        let named = try app.set("camera", #"{"status":"denied"}"#, headers: [("If-None-Match", etag)])
        try Self.expectRefused(app, named, seq: seq)
        #expect(named.headers["ETag"] == etag, "the current tag")
        try Self.expectRefused(
            app, try app.set("camera", #"{"status":"denied"}"#, headers: [("If-None-Match", "W/" + etag)]), seq: seq)
        #expect(try app.set("camera", #"{"status":"denied"}"#, headers: [("If-None-Match", #""0-other""#)]).status == 200)
        let current = try #require(try app.send(.get, path).headers["ETag"])
        let revoke = try app.send(.post, path + "/revoke", headers: [("If-None-Match", current)])
        try Self.expectRefused(app, revoke, seq: try app.lastSeq())
    }
}
