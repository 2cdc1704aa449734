import Foundation
import PermissionAPI
import PermissionWire
import Testing

/// Expiring grants over HTTP (SPEC §11): `until` on a settings change and on a decision,
/// `expiresAt` in the answer, the sweeper's `authorization.expired` by `system`, and every bad
/// `until` refused with the field named and nothing written.
@Suite struct ExpiringGrantTests {
    static func app(maxGrantDuration: TimeInterval = 31_536_000) throws -> TestApp {
        let app = try TestApp { $0.service.maxGrantDuration = maxGrantDuration }
        try app.registerApp()
        return app
    }

    static func time(_ app: TestApp, _ seconds: TimeInterval) -> String {
        Timestamp.format(app.clock.now.addingTimeInterval(seconds))
    }

    @Test func aSettingsChangeWithUntilShowsExpiresAtAndLapsesOnceAsSystem() throws {
        let app = try Self.app()
        let until = Self.time(app, 120)
        let response = try app.set("camera", #"{"status":"authorized","level":"full","until":"\#(until)"}"#)
        #expect(response.status == 200, "\(response.text)")
        let set = try response.decode(Authorization.self)
        #expect(set.status == .authorized && set.expiresAt.map(Timestamp.format) == until && !set.once)
        let seq = try app.lastSeq()
        let entry = try #require(try app.audit("action=authorization.set").last)
        #expect(entry.detail?["until"] == String(Timestamp.milliseconds(since1970: app.clock.now) + 120_000))

        app.clock.advance(by: 119)
        app.application.sweepNow()
        #expect(try app.authorization("camera").status == .authorized)
        #expect(try app.lastSeq() == seq)
        app.clock.advance(by: 1)
        let lapsed = try app.authorization("camera")
        #expect(lapsed.status == .notDetermined && lapsed.reason == .expired && lapsed.expiresAt == nil)
        app.application.sweepNow()
        let expired = try #require(try app.audit("after=\(seq)").first)
        #expect(expired.action == "authorization.expired" && expired.actor.role == "system" && expired.actor.keyId == nil)
        #expect(expired.from?.status == .authorized && expired.to?.status == .notDetermined && expired.reason == "expired")
        #expect(try app.lastSeq() == seq + 1)
        app.application.sweepNow()
        #expect(try app.lastSeq() == seq + 1, "a lapse is written once")
        #expect(try app.authorization("camera").version == 2)
        #expect(try app.request("camera", "full").status == 202, "asked again after the end")
    }

    @Test func aDecisionWithUntilShowsExpiresAtAnyOffsetKeptToTheMillisecond() throws {
        let app = try Self.app()
        let prompt = try app.prompt("camera", "full")
        // Two hours ahead, written with a +02:00 offset and a fraction past the millisecond.
        let local = Timestamp.format(app.clock.now.addingTimeInterval(7200 + 7200))
            .replacingOccurrences(of: "Z", with: "9+02:00")
        let response = try app.send(.post, "/v1/prompts/\(prompt.id)/decision", json: #"{"choice":"allow","until":"\#(local)"}"#)
        #expect(response.status == 200, "\(response.text)")
        let result = try response.decode(DecisionResult.self)
        #expect(result.authorization.expiresAt.map(Timestamp.format) == Self.time(app, 7200))
        #expect(try app.authorization("camera").expiresAt == result.authorization.expiresAt)
    }

    /// Each body is refused with `status` and a detail naming `until`; no audit entry, no change.
    @Test(arguments: [
        ("past", #"{"status":"authorized","level":"full","until":"2020-01-01T00:00:00Z"}"#, 422),
        ("beyond the horizon", #"{"status":"authorized","level":"full","until":"<+3601>"}"#, 422),
        ("with denied", #"{"status":"denied","until":"<+60>"}"#, 422),
        ("with notDetermined", #"{"status":"notDetermined","until":"<+60>"}"#, 422),
        ("malformed", #"{"status":"authorized","level":"full","until":"tomorrow"}"#, 400),
        ("a date only", #"{"status":"authorized","level":"full","until":"2030-01-01"}"#, 400),
        ("a number", #"{"status":"authorized","level":"full","until":1893456000}"#, 400),
        ("null", #"{"status":"authorized","level":"full","until":null}"#, 400),
    ])
    func badUntilOnASettingsChangeWritesNothing(_ name: String, _ body: String, _ status: Int) throws {
        let app = try Self.app(maxGrantDuration: 3600)
        let before = try app.authorization("camera")
        let seq = try app.lastSeq()
        let response = try app.set("camera", Self.substitute(body, app))
        #expect(response.status == status, "\(name): \(response.text)")
        #expect(response.problemType == (status == 422 ? .invalidCombination : .invalidRequest), "\(name)")
        #expect(response.problem?.detail.contains("until") == true, "\(name): \(response.text)")
        #expect(try app.lastSeq() == seq, "\(name): nothing written")
        #expect(try app.authorization("camera") == before)
    }

    @Test(arguments: [
        ("past", "allow", #""<-1>""#, 422),
        ("now", "allow", #""<+0>""#, 422),
        ("beyond the horizon", "allow", #""<+3601>""#, 422),
        ("with deny", "deny", #""<+60>""#, 422),
        ("with allowOnce", "allowOnce", #""<+60>""#, 422),
        ("malformed", "allow", #""2030-13-01T00:00:00Z""#, 400),
        ("null", "allow", "null", 400),
    ])
    func badUntilOnADecisionWritesNothing(_ name: String, _ choice: String, _ until: String, _ status: Int) throws {
        let app = try Self.app(maxGrantDuration: 3600)
        let service = choice == "allowOnce" ? "location" : "camera"
        let prompt = try app.prompt(service, service == "location" ? "whenInUse" : "full")
        let seq = try app.lastSeq()
        let body = Self.substitute(#"{"choice":"\#(choice)","until":\#(until)}"#, app)
        let response = try app.send(.post, "/v1/prompts/\(prompt.id)/decision", json: body)
        #expect(response.status == status, "\(name): \(response.text)")
        #expect(response.problem?.detail.contains("until") == true, "\(name): \(response.text)")
        #expect(try app.lastSeq() == seq, "\(name): nothing written")
        #expect(try app.promptState(prompt) == .pending, "\(name): the prompt can still be answered")
        #expect(try app.authorization(service).status == .notDetermined)
    }

    @Test func theHorizonItselfIsAccepted() throws {
        let app = try Self.app(maxGrantDuration: 3600)
        let response = try app.set("camera", #"{"status":"authorized","level":"full","until":"\#(Self.time(app, 3600))"}"#)
        #expect(response.status == 200, "\(response.text)")
    }

    /// Replaces `<+N>` / `<-N>` with the time N seconds from the app's clock.
    static func substitute(_ body: String, _ app: TestApp) -> String {
        var text = body
        while let open = text.range(of: "<"), let close = text.range(of: ">", range: open.upperBound..<text.endIndex) {
            let seconds = TimeInterval(text[open.upperBound..<close.lowerBound].replacingOccurrences(of: "+", with: "")) ?? 0
            text.replaceSubrange(open.lowerBound..<close.upperBound, with: time(app, seconds))
        }
        return text
    }
}
