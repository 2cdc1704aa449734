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
        #expect(all.items.map { "\($0.app)/\($0.service)" } == ["com.example.chat/camera", "com.example.maps/camera", "com.example.maps/photos"])
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

    @Test func cursorsBelongToTheirListing() throws {
        let app = try Self.populated()
        let page = try app.send(.get, "/v1/users/u1/authorizations?limit=1").decode(AuthorizationList.self)
        let cursor = try #require(page.nextCursor)
        #expect(try app.send(.get, "/v1/users/u2/authorizations?after=" + cursor).status == 400)
        #expect(try app.send(.get, "/v1/users/u1/authorizations?after=" + cursor).status == 200)
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
        let next = try app.send(.get, "/v1/users/u42/prompts?limit=1&after=" + (try #require(paged.nextCursor)))
            .decode(PromptList.self)
        #expect(next.items.map(\.id) == [second.id])
        #expect(try app.send(.get, "/v1/users/u42/prompts?state=maybe").status == 400)
        #expect(try app.send(.get, "/v1/users/u9/prompts").decode(PromptList.self).items.isEmpty)
    }
}
