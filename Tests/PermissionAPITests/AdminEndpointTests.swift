import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import TestThreads
import Testing

/// The catalogue, apps and policies.
@Suite struct AdminEndpointTests {
    @Test func catalogue() throws {
        let app = try TestApp()
        let list = try app.send(.get, "/v1/services").decode(ServiceList.self)
        #expect(list.items.count == 14)
        #expect(list.items.first?.id == "location")
        let location = try app.send(.get, "/v1/services/location").decode(ServiceDefinition.self)
        #expect(location.levels == ["whenInUse", "always"])
        #expect(
            location.purposeKeys["always"] == [
                "NSLocationWhenInUseUsageDescription", "NSLocationAlwaysAndWhenInUseUsageDescription",
            ])
        #expect(location.builtin)
        #expect(location.specials.contains("allowOnce"))
        #expect(try app.send(.get, "/v1/services/teleport").problemType == .unknownService)
        #expect(try app.send(.get, "/v1/services/Bad-Id").status == 400)
    }

    @Test func customServices() throws {
        let app = try TestApp()
        let body = #"{"levels":["read","write"],"purposeKeys":{"read":["XRead"],"write":["XRead","XWrite"]}}"#
        let created = try app.send(.put, "/v1/services/fridge", json: body)
        #expect(created.status == 201)
        #expect(created.headers["Location"] == "/v1/services/fridge")
        #expect(try created.decode(ServiceDefinition.self).builtin == false)
        #expect(try app.send(.put, "/v1/services/fridge", json: body).status == 200)
        #expect(try app.send(.get, "/v1/services").decode(ServiceList.self).items.last?.id == "fridge")
        let seq = try app.lastSeq()
        let builtin = try app.send(.put, "/v1/services/camera", json: body)
        #expect(builtin.status == 409)
        #expect(builtin.problemType == .conflict)
        let missing = try app.send(.put, "/v1/services/oven", json: #"{"levels":["on"],"purposeKeys":{}}"#)
        #expect(missing.status == 422)
        #expect(try app.send(.put, "/v1/services/all", json: body).status == 400)
        #expect(try app.lastSeq() == seq)
        // A custom service works like a built-in one.
        try app.registerApp("com.example.kitchen", ["XRead": "To see what is inside."])
        let prompt = try app.prompt("fridge", "read", app: "com.example.kitchen")
        #expect(prompt.options == ["allow", "deny"])
    }

    @Test func apps() throws {
        let app = try TestApp()
        let body = #"{"name":"Maps","purposeStrings":{"NSCameraUsageDescription":"To scan."}}"#
        let created = try app.send(.put, "/v1/apps/com.example.maps", json: body)
        #expect(created.status == 201)
        #expect(created.headers["Location"] == "/v1/apps/com.example.maps")
        let updated = try app.send(.put, "/v1/apps/com.example.maps", json: body)
        #expect(updated.status == 200)
        let read = try app.send(.get, "/v1/apps/com.example.maps").decode(App.self)
        #expect(read.purposeStrings == ["NSCameraUsageDescription": "To scan."])
        #expect(try app.send(.get, "/v1/apps/com.example.none").problemType == .notFound)
        let seq = try app.lastSeq()
        let control = try app.send(.put, "/v1/apps/com.example.maps", json: #"{"name":"Maps","purposeStrings":{"K":"a\u0007b"}}"#)
        #expect(control.status == 400)
        #expect(try app.send(.put, "/v1/apps/com.example.maps", json: #"{"name":"Maps"}"#).status == 400)
        #expect(try app.lastSeq() == seq)
    }

    /// An app or a policy sent again unchanged is no change: 200 with the stored one (its
    /// `updatedAt` kept), no audit entry, no revision moved; a changed one is written and audited
    /// (a policy moved to another scope as the old one's deletion and the new one's put).
    @Test func theSameAppOrPolicyAgainWritesNothing() throws {
        let app = try TestApp()
        let body = #"{"name":"Maps","purposeStrings":{"NSCameraUsageDescription":"To scan."}}"#
        #expect(try app.send(.put, "/v1/apps/com.example.maps", json: body).status == 201)
        let policy = #"{"service":"camera","app":"com.example.maps","user":null,"effect":"restrict"}"#
        #expect(try app.policy("p1", policy).status == 201)
        let before = try app.send(.get, "/v1/apps/com.example.maps").decode(App.self)
        let seq = try app.lastSeq()
        app.clock.advance(by: 5)
        let again = try app.send(.put, "/v1/apps/com.example.maps", json: body)
        let reread = try again.decode(App.self)
        #expect(again.status == 200 && reread.updatedAt == before.updatedAt)
        let samePolicy = try app.policy("p1", policy)
        #expect(samePolicy.status == 200)
        #expect(try app.lastSeq() == seq, "nothing audited")
        #expect(try app.policy("p1", #"{"service":"camera","app":null,"user":null,"effect":"restrict"}"#).status == 200)
        #expect(
            try app.send(
                .put, "/v1/apps/com.example.maps",
                json: #"{"name":"Maps 2","purposeStrings":{"NSCameraUsageDescription":"To scan."}}"#
            )
            .status == 200)
        // The policy left the app for every app: its deletion there, then the new one.
        #expect(try app.audit("after=\(seq)").map(\.action) == ["policy.deleted", "policy.put", "app.put"])
    }

    /// Purpose keys are openapi.yaml's `PurposeKey` (`^[A-Za-z][A-Za-z0-9]{0,127}$`) in
    /// `purposeStrings`, `localizedPurposeStrings` and a custom service's `purposeKeys`: any
    /// other key is `400 invalid-request` naming the member, and nothing changes.
    @Test(arguments: ["1abc", "a-b", "a.b", "_x", "-", "x_", "a b", "é"])
    func purposeKeysFollowTheDocumentedPattern(key: String) throws {
        let app = try TestApp()
        try app.registerApp("com.example.maps", ["NSCameraUsageDescription": "To scan."])
        let service = #"{"levels":["read"],"purposeKeys":{"read":["XRead"]}}"#
        #expect(try app.send(.put, "/v1/services/fridge", json: service).status == 201)
        let seq = try app.lastSeq()
        let quoted = ProblemJSON.quoted(key)
        let bodies = [
            ("purposeStrings", #"{"name":"Maps","purposeStrings":{"# + quoted + #":"To scan."}}"#),
            (
                "localizedPurposeStrings/de",
                #"{"name":"Maps","purposeStrings":{"NSCameraUsageDescription":"To scan."},"#
                    + #""localizedPurposeStrings":{"de":{"# + quoted + #":"Zum Scannen."}}}"#
            ),
        ]
        for (member, body) in bodies {
            let refused = try app.send(.put, "/v1/apps/com.example.maps", json: body)
            #expect(refused.status == 400, "\(member) \(key)")
            #expect(refused.problemType == .invalidRequest)
            #expect(refused.problem?.detail.hasPrefix(member + ": ") == true, "\(refused.text)")
        }
        let redefined = try app.send(
            .put, "/v1/services/fridge", json: #"{"levels":["read"],"purposeKeys":{"read":["XRead","# + quoted + "]}}")
        #expect(redefined.status == 400)
        #expect(redefined.problemType == .invalidRequest)
        #expect(redefined.problem?.detail.hasPrefix("purposeKeys: ") == true, "\(redefined.text)")
        #expect(
            try app.send(.put, "/v1/services/oven", json: #"{"levels":["on"],"purposeKeys":{"on":["# + quoted + "]}}").status
                == 400)
        #expect(try app.lastSeq() == seq)
        #expect(
            try app.send(.get, "/v1/apps/com.example.maps").decode(App.self).purposeStrings.keys.sorted() == [
                "NSCameraUsageDescription"
            ])
        #expect(try app.send(.get, "/v1/services/fridge").decode(ServiceDefinition.self).purposeKeys == ["read": ["XRead"]])
        #expect(try app.send(.get, "/v1/services/oven").status == 404)
    }

    /// The longest key the pattern allows, and digits after the first letter, are accepted.
    @Test func purposeKeysAtTheEdgesOfThePattern() throws {
        let app = try TestApp()
        let longest = "K" + String(repeating: "9", count: 127)
        try app.registerApp("com.example.maps", [longest: "To scan.", "X1": "To read."])
        let service = #"{"levels":["read"],"purposeKeys":{"read":["X1",""# + longest + #""]}}"#
        #expect(try app.send(.put, "/v1/services/fridge", json: service).status == 201)
        let tooLong = #"{"name":"Maps","purposeStrings":{""# + longest + #"9":"To scan."}}"#
        #expect(try app.send(.put, "/v1/apps/com.example.maps", json: tooLong).status == 400)
    }

    @Test func appsArePaged() throws {
        let app = try TestApp()
        for name in ["a", "b", "c", "d", "e"] { try app.registerApp("com.example.\(name)") }
        var seen: [String] = []
        var cursor: String?
        repeat {
            let query = "limit=2" + (cursor.map { "&after=" + $0 } ?? "")
            let page = try app.send(.get, "/v1/apps?" + query).decode(AppList.self)
            #expect(page.items.count <= 2)
            seen += page.items.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen == ["com.example.a", "com.example.b", "com.example.c", "com.example.d", "com.example.e"])
    }

    @Test func policiesCrud() throws {
        let app = try TestApp()
        let body = #"{"service":"camera","app":null,"user":"u42","effect":"restrict"}"#
        let created = try app.policy("no-camera", body)
        #expect(created.status == 201)
        #expect(created.headers["Location"] == "/v1/policies/no-camera")
        #expect(created.text.contains(#""app":null"#))
        #expect(try app.policy("no-camera", body).status == 200)
        #expect(try app.send(.get, "/v1/policies/no-camera").decode(Policy.self).effect == .restrict)
        try app.policy(
            "maps-photos", #"{"service":"photos","app":"com.example.maps","user":null,"effect":"allow","level":"limited"}"#)
        let list = try app.send(.get, "/v1/policies?limit=1").decode(PolicyList.self)
        #expect(list.items.map(\.id) == ["maps-photos"])
        let rest = try app.send(.get, "/v1/policies?after=" + (try #require(list.nextCursor))).decode(PolicyList.self)
        #expect(rest.items.map(\.id) == ["no-camera"])
        #expect(rest.nextCursor == nil)
        let seq = try app.lastSeq()
        #expect(try app.policy("bad", #"{"service":"teleport","effect":"restrict"}"#).problemType == .unknownService)
        #expect(try app.policy("bad", #"{"service":"camera","effect":"allow"}"#).status == 422)
        #expect(try app.policy("bad", #"{"service":"camera","effect":"allow","level":"huge"}"#).status == 422)
        #expect(try app.policy("bad", #"{"service":"camera","effect":"ban"}"#).status == 400)
        #expect(try app.lastSeq() == seq)
        #expect(try app.send(.delete, "/v1/policies/no-camera").status == 204)
        #expect(try app.send(.delete, "/v1/policies/no-camera").problemType == .notFound)
        #expect(try app.send(.get, "/v1/policies/no-camera").status == 404)
    }

    @Test func resetValidatesItsBody() throws {
        let app = try TestApp()
        #expect(try app.send(.post, "/v1/reset", json: #"{"service":"teleport"}"#).problemType == .unknownService)
        #expect(try app.send(.post, "/v1/reset", json: #"{"service":"all","app":"x"}"#).status == 400)
        #expect(try app.send(.post, "/v1/reset", json: #"{"app":"com.example.maps"}"#).status == 400)
        let none = try app.send(.post, "/v1/reset", json: #"{"service":"all"}"#)
        #expect(none.status == 200)
        #expect(try none.decode(ResetResult.self).count == 0)
        #expect(try app.lastSeq() == 0)
    }

    @Test func userSettings() throws {
        let app = try TestApp()
        #expect(try app.send(.get, "/v1/users/u42/settings").text == #"{"locale":null,"locationServicesEnabled":true}"#)
        let off = try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":false}"#)
        #expect(off.status == 200)
        #expect(try app.send(.get, "/v1/users/u42/settings").decode(UserSettings.self).locationServicesEnabled == false)
        #expect(try app.audit().last?.action == "settings.changed")
        #expect(try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":"no"}"#).status == 400)
    }

    /// Concurrent first `PUT`s of one id: the write transaction decides which one created it,
    /// so exactly one gets 201 and the others 200 (RFC 9110 §9.3.4), for apps, policies and
    /// custom services alike.
    @Test(.timeLimit(.minutes(1)), .blocksItsThread) func concurrentFirstPutsCreateOnce() throws {
        let app = try TestApp()
        let puts: [(path: String, body: String)] = [
            ("/v1/apps/com.example.race", #"{"name":"Race","purposeStrings":{}}"#),
            ("/v1/policies/race", #"{"service":"camera","app":null,"user":"u1","effect":"restrict"}"#),
            ("/v1/services/race", #"{"levels":["read"],"purposeKeys":{"read":["XRaceUsageDescription"]}}"#),
        ]
        for put in puts {
            let statuses = Statuses()
            DispatchQueue.concurrentPerform(iterations: 16) { _ in
                statuses.add(Result { try app.send(.put, put.path, json: put.body).status })
            }
            let all = try statuses.all.map { try $0.get() }
            #expect(all.count == 16)
            #expect(all.filter { $0 == 201 }.count == 1, "\(put.path): \(all)")
            #expect(all.filter { $0 == 200 }.count == 15, "\(put.path): \(all)")
        }
    }
}

/// Results collected from concurrent threads.
private final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<Int, any Error>] = []

    func add(_ result: Result<Int, any Error>) {
        lock.lock()
        results.append(result)
        lock.unlock()
    }

    var all: [Result<Int, any Error>] {
        lock.lock()
        defer { lock.unlock() }
        return results
    }
}
