import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// SPEC §3 effective status, one scenario per rule in its order, and SPEC §4 Settings,
/// Location Services and Policies.
@Suite struct EffectiveStatusScenarioTests {
    @Test func restrictPolicyGivesRestricted() throws {
        let app = try TestApp()
        try app.registerApp()
        try app.set("camera", #"{"status":"authorized","level":"full"}"#)
        try app.policy("r", #"{"service":"camera","app":"com.example.maps","user":null,"effect":"restrict"}"#)
        let authorization = try app.authorization("camera")
        #expect(authorization.status == .restricted)
        #expect(authorization.reason == .policy)
        #expect(authorization.level == nil)
        #expect(try app.authorization("camera", app: "com.example.chat").status == .notDetermined, "other apps unaffected")
        try app.send(.delete, "/v1/policies/r")
        #expect(try app.authorization("camera").status == .authorized, "the stored choice was kept")
    }

    @Test func locationServicesOffGivesDeniedAndKeepsTheStoredChoice() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("location", "whenInUse", "allowWhileUsing")
        try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":false}"#)
        let off = try app.authorization("location")
        #expect(off.status == .denied)
        #expect(off.reason == .servicesDisabled)
        #expect(try app.authorization("camera").status == .notDetermined, "only location follows the switch")
        #expect(try app.authorization("location", app: "com.example.chat").status == .denied, "never written too")
        #expect(try app.authorization("location", user: "u7").status == .notDetermined, "another user's switch is on")
        try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":true}"#)
        let on = try app.authorization("location")
        #expect(on.status == .authorized)
        #expect(on.level == "whenInUse")
        #expect(on.reason == .userConsent)
    }

    /// Switching Location Services off cancels the user's pending location prompts (iOS shows
    /// no location alert while it is off, and an answer would change nothing the user sees);
    /// their other prompts, and other users' location prompts, stay pending. Switching it off
    /// again, or a settings change that leaves it off, cancels nothing more.
    @Test func locationServicesOffCancelsThePendingLocationPrompts() throws {
        let app = try TestApp()
        try app.registerApp()
        let location = try app.prompt("location", "whenInUse")
        let camera = try app.prompt("camera", "full")
        let otherUser = try app.prompt("location", "whenInUse", user: "u7")
        try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":false}"#)
        #expect(try app.promptState(location) == .cancelled)
        #expect(try app.promptState(camera) == .pending)
        #expect(try app.promptState(otherUser) == .pending)
        let cancelled = try app.audit("action=prompt.cancelled")
        #expect(cancelled.map(\.promptId) == [location.id])
        let answer = try app.send(.post, "/v1/prompts/\(location.id)/decision", json: #"{"choice":"allowWhileUsing"}"#)
        #expect(answer.status == 409, "\(answer.text)")
        #expect(try app.authorization("location").reason == .servicesDisabled)
        try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":false,"locale":"de"}"#)
        #expect(try app.audit("action=prompt.cancelled").count == 1)
        // On again: a new request prompts as before.
        try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":true}"#)
        #expect(try app.request("location", "whenInUse").status == 202)
    }

    @Test func allowPolicyPreApproves() throws {
        let app = try TestApp()
        try app.registerApp()
        try app.policy("a", #"{"service":"photos","app":"com.example.maps","user":null,"effect":"allow","level":"limited"}"#)
        let authorization = try app.authorization("photos")
        #expect(authorization.status == .authorized)
        #expect(authorization.level == "limited")
        #expect(authorization.reason == .policy)
        #expect(try app.request("photos", "limited").status == 200)
    }

    @Test func restrictBeatsAllow() throws {
        let app = try TestApp()
        try app.policy("a", #"{"service":"camera","app":null,"user":null,"effect":"allow","level":"full"}"#)
        try app.policy("r", #"{"service":"camera","app":null,"user":"u42","effect":"restrict"}"#)
        #expect(try app.authorization("camera").status == .restricted)
        #expect(try app.authorization("camera", user: "u7").status == .authorized)
    }

    @Test func restrictBeatsLocationServicesOff() throws {
        let app = try TestApp()
        try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":false}"#)
        try app.policy("r", #"{"service":"location","app":null,"user":null,"effect":"restrict"}"#)
        #expect(try app.authorization("location").status == .restricted)
    }

    @Test func lapsedOnceGrantReadsNotDeterminedExpired() throws {
        let app = try TestApp { $0.service.onceTTL = 10 }
        try app.registerApp()
        _ = try app.grant("location", "whenInUse", "allowOnce")
        app.clock.advance(by: 10)
        let authorization = try app.authorization("location")
        #expect(authorization.status == .notDetermined)
        #expect(authorization.reason == .expired)
    }

    @Test func settingsChangesIncludingAskNextTime() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("location", "always", "allowWhileUsing")
        let always = try app.set("location", #"{"status":"authorized","level":"always"}"#).decode(Authorization.self)
        #expect(always.provisional == false, "an explicit choice ends the provisional flow")
        #expect(always.reason == .userSet)
        let denied = try app.set("location", #"{"status":"denied"}"#).decode(Authorization.self)
        #expect(denied.status == .denied)
        let ask = try app.set("location", #"{"status":"notDetermined"}"#).decode(Authorization.self)
        #expect(ask.status == .notDetermined)
        #expect(ask.version > denied.version)
        #expect(try app.request("location", "whenInUse").status == 202, "Ask Next Time prompts again")
        #expect(try app.set("location", #"{"status":"restricted"}"#).status == 400)
        #expect(try app.set("location", #"{"status":"denied","level":"always"}"#).status == 422)
    }

    @Test func restrictedCannotBeChangedOrRevoked() throws {
        let app = try TestApp()
        try app.policy("r", #"{"service":"camera","app":null,"user":null,"effect":"restrict"}"#)
        let seq = try app.lastSeq()
        let set = try app.set("camera", #"{"status":"authorized","level":"full"}"#)
        #expect(set.status == 409)
        #expect(set.problemType == .restricted)
        let revoke = try app.send(.post, TestApp.path("u42", "com.example.maps", "camera") + "/revoke")
        #expect(revoke.status == 409)
        #expect(revoke.problemType == .restricted)
        #expect(try app.lastSeq() == seq)
    }

    @Test func versionsNeverGoBack() throws {
        let app = try TestApp()
        try app.registerApp()
        var last: Int64 = 0
        func check() throws {
            let version = try app.authorization("location").version
            #expect(version >= last)
            last = version
        }
        _ = try app.grant("location", "whenInUse", "allowWhileUsing")
        try check()
        try app.send(.post, "/v1/reset", json: #"{"service":"all"}"#)
        try check()
        _ = try app.grant("location", "whenInUse", "allowOnce")
        try check()
        try app.lifecycle("reinstalled")
        try check()
        try app.set("location", #"{"status":"denied"}"#)
        try check()
        #expect(last == 5)
    }
}
