import Foundation
import PermissionAPI
import PermissionWire
import Testing

/// What happens around the end of a grant, over HTTP: the system's prompts about a grant (the
/// upgrade prompt, a location alert) end with it and keep its end when answered; a lapse not
/// yet swept is written before the change that follows it; an allow policy is a floor; and the
/// location alert schedule outlives Location Services switched off.
@Suite struct GrantEndTests {
    static func app() throws -> TestApp {
        let app = try TestApp { $0.service.maxGrantDuration = 31_536_000 }
        try app.registerApp()
        return app
    }

    /// A provisional Always grant that ends in `seconds` (Allow While Using, with `until`, on a
    /// request for Always), and the upgrade prompt its first background use raises.
    static func provisionalAlwaysWithUpgrade(_ app: TestApp, user: String, ending seconds: TimeInterval) throws -> Prompt {
        let request = try app.prompt("location", "always", user: user)
        let until = ExpiringGrantTests.time(app, seconds)
        let answered = try app.send(
            .post, "/v1/prompts/\(request.id)/decision", json: #"{"choice":"allowWhileUsing","until":"\#(until)"}"#)
        #expect(answered.status == 200, "\(answered.text)")
        let held = try answered.decode(DecisionResult.self).authorization
        #expect(held.level == "always" && held.provisional && held.expiresAt.map(Timestamp.format) == until)
        let used = try LocationAlertTests.used(app, user: user)
        return try #require(try used.decode(LifecycleResult.self).prompt, "\(used.text)")
    }

    @Test func anUpgradePromptEndsWithTheGrantItIsAbout() throws {
        let app = try Self.app()
        // Swept: the lapse cancels it.
        let swept = try Self.provisionalAlwaysWithUpgrade(app, user: "u1", ending: 60)
        #expect(swept.kind == .upgrade)
        app.clock.advance(by: 60)
        app.application.sweepNow()
        #expect(try app.promptState(swept) == .cancelled)
        #expect(try app.authorization("location", user: "u1").status == .notDetermined)

        // Answered after the end, before a sweep: refused, cancelled, nothing granted.
        let answered = try Self.provisionalAlwaysWithUpgrade(app, user: "u2", ending: 60)
        app.clock.advance(by: 60)
        let seq = try app.lastSeq()
        let response = try app.send(
            .post, "/v1/prompts/\(answered.id)/decision", json: #"{"choice":"changeToAlways"}"#)
        #expect(response.status == 409 && response.problem?.type.hasSuffix("prompt-not-pending") == true, "\(response.text)")
        #expect(try app.promptState(answered) == .cancelled)
        let after = try app.authorization("location", user: "u2")
        #expect(after.status == .notDetermined && after.reason == .expired, "nothing granted")
        #expect(try app.audit("after=\(seq)").map(\.action) == ["prompt.cancelled"])
    }

    @Test func answeringTheUpgradePromptKeepsTheGrantsEnd() throws {
        let app = try Self.app()
        let upgrade = try Self.provisionalAlwaysWithUpgrade(app, user: "u42", ending: 600)
        let end = try app.authorization("location").expiresAt
        let kept = try app.decide(upgrade, "keepWhileUsing").authorization
        #expect(kept.level == "whenInUse" && kept.expiresAt == end && end != nil, "the smaller choice ends when it did")

        // A new grant on the app's request without `until` takes the end away, and says so.
        #expect(
            try app.set("photos", #"{"status":"authorized","level":"addOnly","until":"\#(ExpiringGrantTests.time(app, 600))"}"#)
                .status == 200)
        let full = try app.prompt("photos", "full")
        #expect(try app.decide(full, "allowFull").authorization.expiresAt == nil)
        let entry = try #require(try app.audit("action=prompt.answered").last)
        #expect(entry.service == "photos" && entry.detail?["until"] == "", "\(entry)")
    }

    @Test func aLapseNotYetSweptIsWrittenBeforeTheChange() throws {
        let app = try Self.app()
        let once = try app.grant("location", "whenInUse", "allowOnce")
        #expect(once.once && once.expiresAt != nil)
        app.clock.advance(by: app.configuration.service.onceTTL)
        let seq = try app.lastSeq()
        #expect(try app.set("location", #"{"status":"denied"}"#).status == 200)
        let entries = try app.audit("after=\(seq)")
        #expect(entries.map(\.action) == ["authorization.expired", "authorization.set"], "\(entries.map(\.action))")
        #expect(entries.first?.actor.role == "system" && entries.first?.from?.once == true)
        #expect(entries.last?.from?.status == .notDetermined && entries.last?.to?.status == .denied)
        app.application.sweepNow()
        #expect(try app.lastSeq() == seq + 2, "the sweep finds nothing more to write")
    }

    @Test func anAllowPolicyIsAFloor() throws {
        let app = try Self.app()
        let policy = try app.policy(
            "photos-add", #"{"service":"photos","app":"com.example.maps","user":"u42","effect":"allow","level":"addOnly"}"#)
        #expect(policy.status == 201, "\(policy.text)")
        let seq = try app.lastSeq()
        let same = try app.set("photos", #"{"status":"authorized","level":"addOnly"}"#)
        #expect(same.status == 409, "not above the policy: \(same.text)")
        #expect(try app.set("photos", #"{"status":"denied"}"#).status == 409)
        #expect(try app.lastSeq() == seq, "refused, nothing written")

        let raised = try app.set("photos", #"{"status":"authorized","level":"full"}"#)
        #expect(raised.status == 200, "\(raised.text)")
        #expect(try raised.decode(Authorization.self).level == "full")
        let revoked = try app.send(.post, TestApp.path("u42", "com.example.maps", "photos") + "/revoke")
        #expect(revoked.status == 200, "\(revoked.text)")
        let floor = try revoked.decode(Authorization.self)
        #expect(floor.status == .authorized && floor.level == "addOnly" && floor.reason == .policy)
        #expect(try app.send(.post, TestApp.path("u42", "com.example.maps", "photos") + "/revoke").status == 409)
    }

    @Test func noLocationAlertForAnAlwaysAPolicyGives() throws {
        let app = try Self.app()
        let policy = try app.policy(
            "maps-always", #"{"service":"location","app":"com.example.maps","user":null,"effect":"allow","level":"always"}"#)
        #expect(policy.status == 201, "\(policy.text)")
        let used = try LocationAlertTests.used(app)
        #expect(try used.decode(LifecycleResult.self).usageRecorded == false, "\(used.text)")
        #expect(try app.send(.get, "/v1/users/u42/export").decode(UserExport.self).locationAlerts ?? [] == [])
    }

    @Test func theAlertScheduleOutlivesLocationServicesSwitchedOff() throws {
        let app = try Self.app()
        #expect(try app.set("location", #"{"status":"authorized","level":"always"}"#).status == 200)
        try LocationAlertTests.used(app)
        app.clock.advance(by: 3 * LocationAlertTests.day)
        app.application.sweepNow()
        let alert = try #require(try LocationAlertTests.pending(app).first)
        #expect(try app.decide(alert, "keepAlways").authorization.level == "always")
        func schedule() throws -> UserExport.LocationAlert? {
            try app.send(.get, "/v1/users/u42/export").decode(UserExport.self).locationAlerts?.first
        }
        #expect(try schedule()?.alertsShown == 1)

        let off = try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":false}"#)
        #expect(off.status == 200, "\(off.text)")
        #expect(try LocationAlertTests.used(app).decode(LifecycleResult.self).usageRecorded == false)
        app.clock.advance(by: 7 * LocationAlertTests.day)
        app.application.sweepNow()
        #expect(try LocationAlertTests.pending(app).isEmpty, "no alert while it is off")
        #expect(try schedule()?.alertsShown == 1, "the intervals reached are kept")

        let on = try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":true}"#)
        #expect(on.status == 200, "\(on.text)")
        #expect(try LocationAlertTests.used(app).decode(LifecycleResult.self).usageRecorded == true)
        let kept = try #require(try schedule())
        #expect(kept.alertsShown == 1 && kept.nextAlertAt != nil)

        // The user's own choice away from Always ends the schedule at the next use.
        #expect(try app.set("location", #"{"status":"authorized","level":"whenInUse"}"#).status == 200)
        #expect(try LocationAlertTests.used(app).decode(LifecycleResult.self).usageRecorded == false)
        #expect(try schedule() == nil)
    }
}
