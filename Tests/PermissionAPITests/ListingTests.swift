import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// The reverse queries and prompt listings, keyset-paged.
@Suite struct ListingTests {
    /// u1..u5 on maps: camera authorized for odd users, denied for even ones; u1 also has photos.
    static func populated() throws -> TestApp {
        let app = try TestApp()
        try app.registerApp()
        try app.registerApp("com.example.chat")
        for index in 1...5 {
            let body = index % 2 == 1 ? #"{"status":"authorized","level":"full"}"# : #"{"status":"denied"}"#
            #expect(try app.set("camera", body, user: "u\(index)").status == 200)
        }
        try app.set("photos", #"{"status":"authorized","level":"limited"}"#, user: "u1")
        try app.set("camera", #"{"status":"denied"}"#, user: "u1", app: "com.example.chat")
        return app
    }

    @Test func everyAuthorizationOfAUser() throws {
        let app = try Self.populated()
        let all = try app.send(.get, "/v1/users/u1/authorizations").decode(AuthorizationList.self)
        #expect(
            all.items.map { "\($0.app)/\($0.service)" } == [
                "com.example.chat/camera", "com.example.maps/camera", "com.example.maps/photos",
            ])
        #expect(all.nextCursor == nil)
        let denied = try app.send(.get, "/v1/users/u1/authorizations?status=denied").decode(AuthorizationList.self)
        #expect(denied.items.map(\.app) == ["com.example.chat"])
        let photos = try app.send(.get, "/v1/users/u1/authorizations?service=photos").decode(AuthorizationList.self)
        #expect(photos.items.map(\.level) == ["limited"])
    }

    @Test func everyUserOfAnAppForAService() throws {
        let app = try Self.populated()
        var users: [String] = []
        var cursor: String?
        repeat {
            let query = "limit=2" + (cursor.map { "&after=" + $0 } ?? "")
            let page = try app.send(.get, "/v1/apps/com.example.maps/services/camera/users?" + query)
                .decode(AuthorizationList.self)
            #expect(page.items.count <= 2)
            users += page.items.map(\.user)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(users == ["u1", "u2", "u3", "u4", "u5"])
        let authorized = try app.send(.get, "/v1/apps/com.example.maps/services/camera/users?status=authorized")
            .decode(AuthorizationList.self)
        #expect(authorized.items.map(\.user) == ["u1", "u3", "u5"])
        // A restrict policy changes the effective status the filter sees.
        try app.policy("r", #"{"service":"camera","app":null,"user":"u3","effect":"restrict"}"#)
        let restricted = try app.send(.get, "/v1/apps/com.example.maps/services/camera/users?status=restricted")
            .decode(AuthorizationList.self)
        #expect(restricted.items.map(\.user) == ["u3"])
        #expect(try app.send(.get, "/v1/apps/com.example.maps/services/teleport/users").status == 404)
    }

    /// A cursor is the sort key of the page's last item: `<app>/<service>` within a user.
    @Test func aUsersCursorIsAnAppAndServicePosition() throws {
        let app = try Self.populated()
        let page = try app.send(.get, "/v1/users/u1/authorizations?limit=1").decode(AuthorizationList.self)
        #expect(page.nextCursor == "com.example.chat/camera")
        let rest = try app.send(.get, "/v1/users/u1/authorizations?after=com.example.chat/camera")
            .decode(AuthorizationList.self)
        #expect(rest.items.map { "\($0.app)/\($0.service)" } == ["com.example.maps/camera", "com.example.maps/photos"])
        // Positions the server never issued are positions all the same (RFC 9110 §15.5.1 keeps
        // 400 for requests that break the syntax): between items, before all, after all, in
        // another user's listing, or with an app part that is no complete app id.
        let cases: [(String, [String])] = [
            ("com.example.maps/bluetooth", ["com.example.maps/camera", "com.example.maps/photos"]),
            ("com.example.maps/camera", ["com.example.maps/photos"]),
            ("com/zzz", ["com.example.chat/camera", "com.example.maps/camera", "com.example.maps/photos"]),
            ("A/a", ["com.example.chat/camera", "com.example.maps/camera", "com.example.maps/photos"]),
            ("com.example.maps/photos", []),
            ("zzz.-./a", []),
            (
                String(repeating: "9", count: 255) + "/a",
                ["com.example.chat/camera", "com.example.maps/camera", "com.example.maps/photos"]
            ),
        ]
        for (cursor, expected) in cases {
            let response = try app.send(.get, "/v1/users/u1/authorizations?after=" + cursor)
            #expect(response.status == 200, "\(cursor): \(response.text)")
            let list = try response.decode(AuthorizationList.self)
            #expect(list.items.map { "\($0.app)/\($0.service)" } == expected, "\(cursor)")
        }
        // u2 has maps/camera only: u1's cursor is a position in u2's listing too.
        let other = try app.send(.get, "/v1/users/u2/authorizations?after=com.example.chat/camera")
            .decode(AuthorizationList.self)
        #expect(other.items.map(\.user) == ["u2"])
    }

    @Test(
        "a cursor that breaks the documented syntax is 400 invalid-request naming after",
        arguments: [
            "com.example.maps", "/camera", "com.example.maps/", "com.example.maps/Camera", "com_example/camera",
            "com.example.maps/camera/x", String(repeating: "a", count: 256) + "/camera",
            "com.example.maps/" + String(repeating: "a", count: 65), "com.example.maps%2Fcamera%00",
        ])
    func malformedUserCursors(cursor: String) throws {
        let app = try Self.populated()
        let response = try app.send(.get, "/v1/users/u1/authorizations?after=" + cursor)
        #expect(response.status == 400, "\(cursor)")
        #expect(response.problemType == .invalidRequest)
        #expect(response.problem?.detail.hasPrefix("after:") == true, "\(response.text)")
    }

    @Test func otherListingsTakeTheLastIdAsTheirPosition() throws {
        let app = try Self.populated()
        // The users of an app's service: a user id, whether or not that user has a record.
        let page = try app.send(.get, "/v1/apps/com.example.maps/services/camera/users?limit=2")
            .decode(AuthorizationList.self)
        #expect(page.nextCursor == "u2")
        let afterU2a = try app.send(.get, "/v1/apps/com.example.maps/services/camera/users?after=u2a")
            .decode(AuthorizationList.self)
        #expect(afterU2a.items.map(\.user) == ["u3", "u4", "u5"])
        #expect(try app.send(.get, "/v1/apps/com.example.maps/services/camera/users?after=u%2B1").status == 200)
        #expect(try app.send(.get, "/v1/apps/com.example.maps/services/camera/users?after=u%201").status == 400)
        // Apps and policies: an id that was never registered is a position.
        for id in ["com.example.b", "com.example.chat", "com.example.zz"] {
            try app.registerApp(id)
        }
        let apps = try app.send(.get, "/v1/apps?after=com.example.c").decode(AppList.self)
        #expect(apps.items.map(\.id) == ["com.example.chat", "com.example.maps", "com.example.zz"])
        let firstApps = try app.send(.get, "/v1/apps?limit=1").decode(AppList.self)
        #expect(firstApps.nextCursor == "com.example.b")
        #expect(try app.send(.get, "/v1/apps?after=com").status == 400, "an app position is an app id")
        try app.policy("p1", #"{"service":"camera","app":null,"user":"u3","effect":"restrict"}"#)
        try app.policy("p3", #"{"service":"camera","app":null,"user":"u4","effect":"restrict"}"#)
        let policies = try app.send(.get, "/v1/policies?after=p2").decode(PolicyList.self)
        #expect(policies.items.map(\.id) == ["p3"])
        #expect(try app.send(.get, "/v1/policies?limit=1").decode(PolicyList.self).nextCursor == "p1")
    }

    @Test func promptsOfAUserByState() throws {
        let app = try TestApp()
        try app.registerApp()
        // Prompt ids start with the creation time: space them so that id order is creation order.
        let first = try app.prompt("camera", "full")
        app.clock.advance(by: 0.01)
        let second = try app.prompt("microphone", "full")
        app.clock.advance(by: 0.01)
        _ = try app.prompt("contacts", "full")
        _ = try app.decide(first, "allow")
        let pending = try app.send(.get, "/v1/users/u42/prompts?state=pending").decode(PromptList.self)
        #expect(pending.items.map(\.service) == ["microphone", "contacts"])
        let answered = try app.send(.get, "/v1/users/u42/prompts?state=answered").decode(PromptList.self)
        #expect(answered.items.map(\.id) == [first.id])
        #expect(answered.items.first?.choice == "allow")
        let paged = try app.send(.get, "/v1/users/u42/prompts?limit=1").decode(PromptList.self)
        #expect(paged.items.map(\.id) == [first.id])
        #expect(paged.nextCursor == first.id, "a prompt listing's cursor is the last prompt id")
        let next = try app.send(.get, "/v1/users/u42/prompts?limit=1&after=" + (try #require(paged.nextCursor)))
            .decode(PromptList.self)
        #expect(next.items.map(\.id) == [second.id])
        // A prompt id that was never issued is a position: the prompts created after it.
        let position = String(first.id.prefix(12))
        let afterPosition = try app.send(.get, "/v1/users/u42/prompts?after=" + position).decode(PromptList.self)
        #expect(afterPosition.items.count == 3, "every id extends its own prefix, so sorts after it")
        #expect(try app.send(.get, "/v1/users/u42/prompts?after=zzz").decode(PromptList.self).items.isEmpty)
        #expect(try app.send(.get, "/v1/users/u42/prompts?after=a.b").status == 400)
        #expect(try app.send(.get, "/v1/users/u42/prompts?state=maybe").status == 400)
        #expect(try app.send(.get, "/v1/users/u9/prompts").decode(PromptList.self).items.isEmpty)
    }
}
