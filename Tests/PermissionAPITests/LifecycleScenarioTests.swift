import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// SPEC §4 Lifecycle and the changes time makes (SPEC §5), and prompt cancellation.
@Suite struct LifecycleScenarioTests {
    @Test func sessionEndedEndsAllowOnce() throws {
        let app = try TestApp()
        try app.registerApp()
        let once = try app.grant("location", "whenInUse", "allowOnce")
        #expect(once.once)
        _ = try app.grant("camera", "full", "allow")
        let result = try app.lifecycle("sessionEnded").decode(LifecycleResult.self)
        #expect(result.changed.map(\.service) == ["location"])
        let location = try app.authorization("location")
        #expect(location.status == .notDetermined)
        #expect(location.reason == .expired)
        #expect(try app.authorization("camera").status == .authorized)
        #expect(try app.audit().last?.action == "authorization.expired")
        #expect(try app.audit().last?.actor.role == "admin")
        #expect(try app.request("location", "whenInUse").status == 202, "asked again after the session")
    }

    @Test func onceGrantLapsesAfterTheTTLAndTheSweeperAuditsItAsSystem() throws {
        let app = try TestApp { $0.service.onceTTL = 60 }
        try app.registerApp()
        _ = try app.grant("location", "whenInUse", "allowOnce")
        let seq = try app.lastSeq()
        app.clock.advance(by: 59)
        app.application.sweepNow()
        #expect(try app.authorization("location").status == .authorized)
        #expect(try app.lastSeq() == seq)
        app.clock.advance(by: 1)
        // Reads show the lapsed state from the deadline on, before any sweep.
        let lapsed = try app.authorization("location")
        #expect(lapsed.status == .notDetermined)
        #expect(lapsed.reason == .expired)
        app.application.sweepNow()
        let entry = try #require(try app.audit("after=\(seq)").first)
        #expect(entry.action == "authorization.expired")
        #expect(entry.actor.role == "system")
        #expect(entry.actor.keyId == nil)
        #expect(try app.lastSeq() == seq + 1)
        app.application.sweepNow()
        #expect(try app.lastSeq() == seq + 1, "a lapse is written once")
    }

    @Test func promptExpiresAfterTheTTL() throws {
        let app = try TestApp { $0.service.promptTTL = 30 }
        try app.registerApp()
        let prompt = try app.prompt("camera", "full")
        app.clock.advance(by: 30)
        #expect(try app.promptState(prompt) == .expired)
        #expect(try app.authorization("camera").status == .notDetermined)
        let late = try app.send(.post, "/v1/prompts/\(prompt.id)/decision", json: #"{"choice":"allow"}"#)
        #expect(late.problemType == .promptNotPending)
        app.application.sweepNow()
        let entry = try #require(try app.audit("action=prompt.expired").first)
        #expect(entry.actor.role == "system")
        #expect(entry.promptId == prompt.id)
        #expect(try app.prompt("camera", "full").id != prompt.id, "a new request makes a new prompt")
    }

    /// Each way of changing an authorization other than a decision cancels its pending prompt.
    @Test(arguments: ["settings", "revoke", "reset", "reinstall", "policy"])
    func pendingPromptIsCancelled(by change: String) throws {
        let app = try TestApp()
        try app.registerApp()
        let prompt = try app.prompt("location", "whenInUse")
        switch change {
        case "settings": try app.set("location", #"{"status":"denied"}"#)
        case "revoke": try app.send(.post, TestApp.path("u42", "com.example.maps", "location") + "/revoke")
        case "reset": try app.send(.post, "/v1/reset", json: #"{"service":"location"}"#)
        case "reinstall": try app.lifecycle("reinstalled")
        default: try app.policy("p", #"{"service":"location","app":null,"user":null,"effect":"restrict"}"#)
        }
        #expect(try app.promptState(prompt) == .cancelled)
        #expect(try app.audit("action=prompt.cancelled").map(\.promptId) == [prompt.id])
        let decided = try app.send(.post, "/v1/prompts/\(prompt.id)/decision", json: #"{"choice":"allowWhileUsing"}"#)
        #expect(decided.status == 409)
    }

    /// A prompt past its deadline that the sweep has not written yet is already `expired` to
    /// every read: a change that would cancel it writes it expired, by `system` (as the sweep
    /// would have), not cancelled by the caller; a reset does not count it.
    @Test(arguments: ["settings", "revoke", "reset", "reinstall", "policy"])
    func aPromptPastItsDeadlineIsWrittenExpiredNotCancelled(by change: String) throws {
        let app = try TestApp()
        try app.registerApp()
        let prompt = try app.prompt("location", "whenInUse")
        app.clock.advance(by: 601)  // past the 600 s prompt TTL; no sweep runs here
        #expect(try app.promptState(prompt) == .expired)
        switch change {
        case "settings": try app.set("location", #"{"status":"denied"}"#)
        case "revoke": try app.send(.post, TestApp.path("u42", "com.example.maps", "location") + "/revoke")
        case "reset":
            let reset = try app.send(.post, "/v1/reset", json: #"{"service":"location"}"#)
            #expect(reset.text.contains(#""count":0"#), "\(reset.text)")
        case "reinstall": try app.lifecycle("reinstalled")
        default: try app.policy("p", #"{"service":"location","app":null,"user":null,"effect":"restrict"}"#)
        }
        #expect(try app.promptState(prompt) == .expired)
        #expect(try app.audit("action=prompt.cancelled").isEmpty)
        let expired = try app.audit("action=prompt.expired")
        #expect(expired.map(\.promptId) == [prompt.id])
        #expect(expired.first?.actor.role == "system", "\(expired)")
    }

    @Test func reinstallResetsLocationOnly() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("location", "whenInUse", "allowWhileUsing")
        _ = try app.grant("camera", "full", "allow")
        let before = try app.authorization("location").version
        let result = try app.lifecycle("reinstalled").decode(LifecycleResult.self)
        #expect(result.changed.map(\.service) == ["location"])
        let location = try app.authorization("location")
        #expect(location.status == .notDetermined)
        #expect(location.reason == .reinstall)
        #expect(location.version > before, "versions never go back")
        #expect(try app.authorization("camera").status == .authorized)
        #expect(try app.request("location", "whenInUse").status == 202)
    }

    @Test func resetByAppUserAndAllCounts() throws {
        let app = try TestApp()
        try app.registerApp()
        try app.registerApp("com.example.chat")
        for user in ["u1", "u2"] {
            for bundle in ["com.example.maps", "com.example.chat"] {
                _ = try app.grant("camera", "full", "allow", user: user, app: bundle)
                _ = try app.grant("microphone", "full", "deny", user: user, app: bundle)
            }
        }
        _ = try app.prompt("contacts", "full", user: "u1", app: "com.example.maps")
        func reset(_ json: String) throws -> Int64 {
            try app.send(.post, "/v1/reset", json: json).decode(ResetResult.self).count
        }
        #expect(try reset(#"{"service":"camera","app":"com.example.maps","user":"u1"}"#) == 1)
        #expect(try reset(#"{"service":"camera","app":"com.example.maps"}"#) == 1, "u1's is already reset")
        // u1: maps microphone, chat camera, chat microphone, and the pending contacts prompt.
        #expect(try reset(#"{"service":"all","user":"u1"}"#) == 4)
        let u1 = try app.send(.get, "/v1/users/u1/authorizations").decode(AuthorizationList.self).items
        #expect(u1.allSatisfy { $0.status == .notDetermined })
        #expect(u1.filter { $0.reason == .reset }.count == u1.count)
        #expect(try reset(#"{"service":"all"}"#) == 3, "u2: chat camera and both microphones")
        #expect(try reset(#"{"service":"all"}"#) == 0)
        let entry = try #require(try app.audit("action=authorization.reset").first)
        #expect(entry.reason == "reset")
    }

    @Test func lifecycleErrorsChangeNothing() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("location", "always", "allowWhileUsing")
        // The app dropped the Always purpose string the upgrade prompt shows.
        try app.registerApp("com.example.maps", ["NSLocationWhenInUseUsageDescription": "Nearby stops."])
        let seq = try app.lastSeq()
        let upgrade = try app.lifecycle("backgroundLocationUsed")
        #expect(upgrade.status == 422)
        #expect(upgrade.problem?.key == "NSLocationAlwaysAndWhenInUseUsageDescription")
        #expect(try app.lifecycle("uninstalled").status == 400)
        #expect(try app.lifecycle("sessionEnded", user: "bad user").status == 400)
        let form = try app.send(
            .post, "/v1/users/u42/apps/com.example.maps/lifecycle", body: Array("event=x".utf8),
            headers: [("Content-Type", "text/plain")])
        #expect(form.status == 415)
        #expect(try app.lastSeq() == seq)
        #expect(try app.send(.get, "/v1/prompts/000000000000-0000000000000000").problemType == .notFound)
    }
}
