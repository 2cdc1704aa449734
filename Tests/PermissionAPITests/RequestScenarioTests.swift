import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// SPEC §4 Request: one scenario per rule, in the order the SPEC lists them.
@Suite struct RequestScenarioTests {
    @Test func missingPurposeStringIs422NamingTheKeyAndChangesNothing() throws {
        let app = try TestApp()
        try app.registerApp("com.example.maps", ["NSLocationWhenInUseUsageDescription": "Nearby stops."])
        let before = try app.lastSeq()
        let response = try app.send(
            .post, TestApp.path("u42", "com.example.maps", "location") + "/request", json: #"{"level":"always"}"#)
        #expect(response.status == 422)
        #expect(response.problemType == .missingPurposeString)
        #expect(response.problem?.key == "NSLocationAlwaysAndWhenInUseUsageDescription")
        #expect(try app.lastSeq() == before)
        // An app never registered has no purpose strings at all.
        let unregistered = try app.send(
            .post, TestApp.path("u42", "com.example.other", "camera") + "/request", json: #"{"level":"full"}"#)
        #expect(unregistered.problem?.key == "NSCameraUsageDescription")
        // Checked first, whatever the state: even a denied authorization gets the 422.
        try app.set("camera", #"{"status":"denied"}"#, app: "com.example.other")
        let denied = try app.send(
            .post, TestApp.path("u42", "com.example.other", "camera") + "/request", json: #"{"level":"full"}"#)
        #expect(denied.status == 422)
    }

    @Test func restrictedAnswers200WithoutPrompt() throws {
        let app = try TestApp()
        try app.registerApp()
        try app.policy("r", #"{"service":"camera","app":null,"user":null,"effect":"restrict"}"#)
        let (status, outcome) = try app.request("camera", "full")
        #expect(status == 200)
        #expect(outcome.prompt == nil)
        #expect(outcome.authorization.status == .restricted)
        #expect(outcome.authorization.reason == .policy)
    }

    @Test func deniedAnswers200WithoutPrompt() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("camera", "full", "deny")
        let seq = try app.lastSeq()
        let (status, outcome) = try app.request("camera", "full")
        #expect(status == 200)
        #expect(outcome.authorization.status == .denied)
        #expect(try app.lastSeq() == seq, "no prompt, no audit entry")
    }

    @Test(arguments: [("photos", "full", "allowFull", "limited"), ("location", "always", "allowWhileUsing", "whenInUse")])
    func authorizedAtOrAboveTheLevelAnswers200(service: String, level: String, choice: String, lower: String) throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant(service, level, choice)
        for asked in [level, lower] {
            let (status, outcome) = try app.request(service, asked)
            #expect(status == 200)
            #expect(outcome.authorization.level == level)
        }
    }

    @Test func whenInUseAskingForAlwaysAnswers200() throws {
        let app = try TestApp()
        try app.registerApp()
        let granted = try app.grant("location", "whenInUse", "allowWhileUsing")
        #expect(granted.level == "whenInUse")
        #expect(granted.provisional == false)
        let (status, outcome) = try app.request("location", "always")
        #expect(status == 200)
        #expect(outcome.authorization.level == "whenInUse")
    }

    @Test func notDeterminedAnswers202WithTheSamePromptWhilePending() throws {
        let app = try TestApp()
        try app.registerApp()
        let first = try app.send(
            .post, TestApp.path("u42", "com.example.maps", "camera") + "/request", json: #"{"level":"full"}"#)
        #expect(first.status == 202)
        let outcome = try first.decode(RequestOutcome.self)
        let prompt = try #require(outcome.prompt)
        #expect(first.headers["Location"] == "/v1/prompts/\(prompt.id)")
        #expect(outcome.authorization.status == .notDetermined)
        #expect(prompt.state == .pending)
        #expect(prompt.purpose == "Purpose for NSCameraUsageDescription.")
        #expect(prompt.purposeKey == "NSCameraUsageDescription")
        #expect(prompt.expiresAt == TestApp.start.addingTimeInterval(600))
        let seq = try app.lastSeq()
        app.clock.advance(by: 5)
        #expect(try app.prompt("camera", "full").id == prompt.id)
        #expect(try app.lastSeq() == seq)
        #expect(try app.send(.get, "/v1/prompts/\(prompt.id)").decode(Prompt.self) == prompt)
        #expect(try app.audit().last?.action == "prompt.created")
    }

    @Test func levelTheServiceLacksIs422AndMalformedBodyIs400() throws {
        let app = try TestApp()
        try app.registerApp()
        let path = TestApp.path("u42", "com.example.maps", "camera") + "/request"
        #expect(try app.send(.post, path, json: #"{"level":"always"}"#).problemType == .unknownLevel)
        #expect(try app.send(.post, path, json: #"{"levle":"full"}"#).problemType == .unknownMember)
        #expect(try app.send(.post, path, json: "").problemType == .invalidJSON)
        #expect(try app.send(.post, path, json: "[]").problemType == .invalidRequest)
        #expect(try app.lastSeq() == 1, "only the app registration")
    }

    @Test(arguments: [
        ("calendars", "writeOnly", "full", ["allow", "deny"]),
        ("photos", "addOnly", "full", ["selectItems", "allowFull", "deny"]),
    ])
    func higherLevelPromptsWhereIOSDoes(service: String, held: String, asked: String, options: [String]) throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant(service, held, held == "addOnly" ? "allow" : "allow")
        let prompt = try app.prompt(service, asked)
        #expect(prompt.options == options)
        let result = try app.decide(prompt, "deny")
        #expect(result.authorization.status == .authorized, "deny keeps the grant already held")
        #expect(result.authorization.level == held)
        let (status, _) = try app.request(service, asked)
        #expect(status == 200, "not prompted for that level again")
    }

    @Test(arguments: [("location", "whenInUse", "allowWhileUsing", "always"), ("contacts", "limited", "selectItems", "full")])
    func levelChangesThatOnlySettingsMake(service: String, requested: String, choice: String, higher: String) throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant(service, requested, choice)
        let (status, outcome) = try app.request(service, higher)
        #expect(status == 200)
        #expect(outcome.prompt == nil)
    }
}
