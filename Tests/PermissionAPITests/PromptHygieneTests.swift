import Foundation
import PermissionAPI
import PermissionWire
import Testing

/// Prompt hygiene over HTTP (SPEC §11): one prompt more than `--max-pending-prompts` for a
/// user and app is `429 too-many-prompts` naming the pending ones, with nothing written; the
/// prompt already pending is still returned; on both stores.
@Suite struct PromptHygieneTests {
    @Test func oneMorePromptIs429NamingThePendingOnesAndWritesNothing() throws {
        let app = try TestApp()
        try app.registerApp()
        let pending = [
            try app.prompt("camera", "full"), try app.prompt("microphone", "full"), try app.prompt("contacts", "full"),
        ]
        let seq = try app.lastSeq()
        let response = try app.send(
            .post, TestApp.path("u42", "com.example.maps", "photos") + "/request", json: #"{"level":"full"}"#)
        #expect(response.status == 429, "\(response.text)")
        let problem = try #require(response.problem)
        #expect(problem.problemType == .tooManyPrompts && problem.title == "Too many pending prompts")
        #expect(problem.limit == 3)
        let named = try #require(problem.pending)
        #expect(Set(named.map(\.id)) == Set(pending.map(\.id)))
        #expect(Set(named.map(\.service)) == ["camera", "microphone", "contacts"])
        // Room again once the first of them expires, unless the user answers sooner: the prompt
        // TTL (600 s) from now, as the clock has not moved.
        #expect(response.headers["Retry-After"] == "600", "\(response.headers)")
        let button = try app.send(.post, TestApp.path("u42", "com.example.maps", "location") + "/button")
        #expect(button.status == 429 && button.problemType == .tooManyPrompts)
        #expect(try app.lastSeq() == seq, "no prompt, no audit entry")
        let list = try app.send(.get, "/v1/users/u42/prompts?state=pending").decode(PromptList.self)
        #expect(list.items.count == 3)

        let again = try app.request("microphone", "full")
        #expect(again.status == 202 && again.outcome.prompt?.id == pending[1].id, "the pending prompt, not a 429")
        #expect(try app.request("photos", "full", user: "u43").status == 202, "another user has room")
        _ = try app.decide(pending[0], "deny")
        #expect(try app.request("photos", "full").status == 202, "an answer makes room")
    }

    @Test func theLimitIsASetting() throws {
        let app = try TestApp { $0.service.maxPendingPrompts = 1 }
        try app.registerApp()
        let camera = try app.prompt("camera", "full")
        let response = try app.send(
            .post, TestApp.path("u42", "com.example.maps", "photos") + "/request", json: #"{"level":"full"}"#)
        #expect(response.status == 429 && response.problem?.limit == 1)
        #expect(response.problem?.pending == [Problem.PendingPrompt(id: camera.id, service: "camera")])
    }
}
