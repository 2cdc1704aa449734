import Foundation
import PermissionAPI
import PermissionWire
import Testing

import struct PermissionDomain.AppID
import struct PermissionDomain.UserID

/// Location alerts over HTTP (SPEC §11, seed 004): `backgroundLocationUsed` with `usedAt` and
/// `usageRecorded`, the sweeper's `locationAlert` prompt with its count as actor `system`, both
/// answers through the decision endpoint, an app's `version` on `PUT /v1/apps/{app}`, and bad
/// input refused with the member named and nothing written.
@Suite struct LocationAlertTests {
    static let day: TimeInterval = 86_400

    static func app() throws -> TestApp {
        let app = try TestApp()
        try app.registerApp()
        return app
    }

    @discardableResult
    static func used(_ app: TestApp, user: String = "u42", usedAt: String? = nil) throws -> TestResponse {
        let body =
            usedAt.map { #"{"event":"backgroundLocationUsed","usedAt":"\#($0)"}"# } ?? #"{"event":"backgroundLocationUsed"}"#
        return try app.send(.post, "/v1/users/\(user)/apps/com.example.maps/lifecycle", json: body)
    }

    static func pending(_ app: TestApp, user: String = "u42") throws -> [Prompt] {
        try app.send(.get, "/v1/users/\(user)/prompts?state=pending").decode(PromptList.self).items
    }

    @Test func aUseIsRecordedOnlyForAlways() throws {
        let app = try Self.app()
        var response = try Self.used(app)
        #expect(response.status == 200, "\(response.text)")
        #expect(try response.decode(LifecycleResult.self).usageRecorded == false)
        #expect(try app.set("location", #"{"status":"authorized","level":"always"}"#).status == 200)
        response = try Self.used(app, usedAt: Timestamp.format(app.clock.now.addingTimeInterval(-7200)))
        #expect(response.status == 200, "\(response.text)")
        let result = try response.decode(LifecycleResult.self)
        #expect(result.usageRecorded == true && result.prompt == nil && result.changed.isEmpty)
        #expect(response.text.contains(#""usageRecorded":true"#))
        let ended = try app.lifecycle("sessionEnded")
        #expect(!ended.text.contains("usageRecorded"), "absent for the other events: \(ended.text)")
        let export = try app.send(.get, "/v1/users/u42/export").decode(UserExport.self)
        let kept = try #require(export.locationAlerts?.first)
        #expect(export.locationAlerts?.count == 1 && kept.app == "com.example.maps" && kept.usesSinceAlert == 1)
        #expect(kept.recentUses.map(\.count) == [1] && kept.nextAlertAt != nil && kept.lastAlertAt == nil)
    }

    @Test func theSweeperIssuesOneAlertAsSystemAndBothAnswersWork() throws {
        let app = try Self.app()
        #expect(try app.set("location", #"{"status":"authorized","level":"always"}"#).status == 200)
        try Self.used(app)
        try Self.used(app)
        app.clock.advance(by: 3 * Self.day - 1)
        app.application.sweepNow()
        #expect(try Self.pending(app).isEmpty, "not before 3 days")
        app.clock.advance(by: 1)
        let seq = try app.lastSeq()
        app.application.sweepNow()
        app.application.sweepNow()
        let alerts = try Self.pending(app)
        #expect(alerts.count == 1, "exactly one")
        let alert = try #require(alerts.first)
        #expect(alert.kind == .locationAlert && alert.options == ["keepAlways", "changeToWhileUsing"])
        #expect(alert.backgroundUses == 2 && alert.level == "always" && alert.service == "location")
        #expect(alert.purposeKey == "NSLocationAlwaysAndWhenInUseUsageDescription")
        let created = try #require(try app.audit("after=\(seq)").first)
        #expect(created.action == "prompt.created" && created.actor.role == "system" && created.actor.keyId == nil)
        #expect(created.detail?["backgroundUses"] == "2" && created.detail?["kind"] == "locationAlert")
        #expect(try app.lastSeq() == seq + 1)

        let kept = try app.decide(alert, "keepAlways")
        #expect(kept.authorization.level == "always" && kept.authorization.version == 1, "Keep Always changes nothing")
        #expect(kept.prompt.choice == "keepAlways" && kept.prompt.backgroundUses == 2)

        app.clock.advance(by: 60)
        try Self.used(app)
        app.clock.advance(by: 7 * Self.day)
        try Self.used(app)
        app.application.sweepNow()
        let second = try #require(try Self.pending(app).first)
        #expect(second.kind == .locationAlert && second.backgroundUses == 1, "one use in the last 3 days")
        let narrowed = try app.decide(second, "changeToWhileUsing")
        #expect(narrowed.authorization.status == .authorized && narrowed.authorization.level == "whenInUse")
        #expect(narrowed.authorization.reason == .userConsent)
        let response = try app.send(.post, "/v1/prompts/\(second.id)/decision", json: #"{"choice":"keepAlways"}"#)
        #expect(response.status == 409, "answered once: \(response.text)")
    }

    @Test func aChoiceTheAlertDoesNotOfferIsRefused() throws {
        let app = try Self.app()
        #expect(try app.set("location", #"{"status":"authorized","level":"always"}"#).status == 200)
        try Self.used(app)
        app.clock.advance(by: 3 * Self.day)
        app.application.sweepNow()
        let alert = try #require(try Self.pending(app).first)
        let response = try app.send(.post, "/v1/prompts/\(alert.id)/decision", json: #"{"choice":"deny"}"#)
        #expect(response.status == 422 && response.problemType == .invalidChoice, "\(response.text)")
        let until = Timestamp.format(app.clock.now.addingTimeInterval(3600))
        let withUntil = try app.send(
            .post, "/v1/prompts/\(alert.id)/decision", json: #"{"choice":"keepAlways","until":"\#(until)"}"#)
        #expect(withUntil.status == 422 && withUntil.problem?.detail.contains("until") == true, "\(withUntil.text)")
        #expect(try app.promptState(alert) == .pending)
    }

    /// Each body is refused with `status` naming `usedAt`; nothing is written or kept.
    @Test(arguments: [
        ("in the future", #"{"event":"backgroundLocationUsed","usedAt":"<+120>"}"#, 422),
        ("4 days ago", #"{"event":"backgroundLocationUsed","usedAt":"<-345600>"}"#, 422),
        ("with another event", #"{"event":"sessionEnded","usedAt":"<-60>"}"#, 422),
        ("malformed", #"{"event":"backgroundLocationUsed","usedAt":"yesterday"}"#, 400),
        ("null", #"{"event":"backgroundLocationUsed","usedAt":null}"#, 400),
        ("a number", #"{"event":"backgroundLocationUsed","usedAt":1893456000}"#, 400),
    ])
    func badUsedAtWritesNothing(_ name: String, _ body: String, _ status: Int) throws {
        let app = try Self.app()
        #expect(try app.set("location", #"{"status":"authorized","level":"always"}"#).status == 200)
        let seq = try app.lastSeq()
        var text = body
        for (token, seconds) in [("<+120>", 120.0), ("<-345600>", -345_600.0), ("<-60>", -60.0)] {
            text = text.replacingOccurrences(of: token, with: Timestamp.format(app.clock.now.addingTimeInterval(seconds)))
        }
        let response = try app.send(.post, "/v1/users/u42/apps/com.example.maps/lifecycle", json: text)
        #expect(response.status == status, "\(name): \(response.text)")
        #expect(response.problem?.detail.contains("usedAt") == true, "\(name): \(response.text)")
        if status == 422 { #expect(response.problemType == .invalidCombination, "\(name)") }
        #expect(try app.lastSeq() == seq)
        #expect(
            try app.application.service.locationAlertSchedule(
                user: UserID(trusted: "u42"), app: AppID(trusted: "com.example.maps")) == nil)
    }

    @Test func anAppsVersionIsKeptAndANewOneStartsTheIntervalsOver() throws {
        let app = try Self.app()
        func register(_ extra: String) throws -> TestResponse {
            try app.send(
                .put, "/v1/apps/com.example.maps",
                json:
                    #"{"name":"Maps","purposeStrings":{"NSLocationWhenInUseUsageDescription":"W","NSLocationAlwaysAndWhenInUseUsageDescription":"A"}\#(extra)}"#
            )
        }
        var response = try register(#","version":"1.0""#)
        #expect(response.status == 200, "\(response.text)")
        #expect(try response.decode(App.self).version == "1.0")
        #expect(try app.send(.get, "/v1/apps/com.example.maps").decode(App.self).version == "1.0")
        response = try register("")
        #expect(try response.decode(App.self).version == "1.0", "absent: kept")
        for (bad, status) in [(#","version":"""#, 400), (#","version":null"#, 400), (#","version":7"#, 400)] {
            let refused = try register(bad)
            #expect(refused.status == status && refused.problem?.detail.contains("version") == true, "\(refused.text)")
        }
        let long = try register(#","version":"\#(String(repeating: "9", count: 65))""#)
        #expect(long.status == 400 && long.problem?.detail.contains("version") == true, "\(long.text)")

        #expect(try app.set("location", #"{"status":"authorized","level":"always"}"#).status == 200)
        try Self.used(app)
        for interval in [3, 7] as [TimeInterval] {
            app.clock.advance(by: interval * Self.day)
            try Self.used(app)
            app.application.sweepNow()
            let alert = try #require(try Self.pending(app).first)
            _ = try app.decide(alert, "keepAlways")
        }
        app.clock.advance(by: 3 * Self.day)
        try Self.used(app)
        app.application.sweepNow()
        #expect(try Self.pending(app).isEmpty, "the third interval is 14 days")
        #expect(try register(#","version":"1.1""#).status == 200)
        let entry = try #require(try app.audit("action=app.put").last)
        #expect(entry.detail?["version"] == "1.1")
        app.application.sweepNow()
        #expect(try Self.pending(app).first?.kind == .locationAlert, "an update starts over at 3 days")
    }
}
