import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// SPEC §4 prompt table: one scenario per row, every option and choice → result.
@Suite struct PromptScenarioTests {
    struct Row: Sendable, CustomStringConvertible {
        let service: String
        let level: String
        let options: [String]
        let choice: String
        let status: Authorization.Status
        let resultLevel: String?
        var once = false
        var provisional = false
        var description: String { "\(service) \(level) \(choice)" }
    }

    static let rows: [Row] = [
        // any service, single level
        Row(
            service: "camera", level: "full", options: ["allow", "deny"], choice: "allow", status: .authorized,
            resultLevel: "full"),
        Row(service: "camera", level: "full", options: ["allow", "deny"], choice: "deny", status: .denied, resultLevel: nil),
        // location whenInUse
        Row(
            service: "location", level: "whenInUse", options: ["allowOnce", "allowWhileUsing", "deny"], choice: "allowOnce",
            status: .authorized, resultLevel: "whenInUse", once: true),
        Row(
            service: "location", level: "whenInUse", options: ["allowOnce", "allowWhileUsing", "deny"],
            choice: "allowWhileUsing", status: .authorized, resultLevel: "whenInUse"),
        Row(
            service: "location", level: "whenInUse", options: ["allowOnce", "allowWhileUsing", "deny"], choice: "deny",
            status: .denied, resultLevel: nil),
        // location always
        Row(
            service: "location", level: "always", options: ["allowOnce", "allowWhileUsing", "deny"], choice: "allowOnce",
            status: .authorized, resultLevel: "whenInUse", once: true),
        Row(
            service: "location", level: "always", options: ["allowOnce", "allowWhileUsing", "deny"],
            choice: "allowWhileUsing", status: .authorized, resultLevel: "always", provisional: true),
        Row(
            service: "location", level: "always", options: ["allowOnce", "allowWhileUsing", "deny"], choice: "deny",
            status: .denied, resultLevel: nil),
        // photos limited/full
        Row(
            service: "photos", level: "limited", options: ["selectItems", "allowFull", "deny"], choice: "selectItems",
            status: .authorized, resultLevel: "limited"),
        Row(
            service: "photos", level: "full", options: ["selectItems", "allowFull", "deny"], choice: "allowFull",
            status: .authorized, resultLevel: "full"),
        Row(
            service: "photos", level: "full", options: ["selectItems", "allowFull", "deny"], choice: "deny",
            status: .denied, resultLevel: nil),
        // contacts
        Row(
            service: "contacts", level: "full", options: ["selectItems", "allowFull", "deny"], choice: "selectItems",
            status: .authorized, resultLevel: "limited"),
        Row(
            service: "contacts", level: "full", options: ["selectItems", "allowFull", "deny"], choice: "allowFull",
            status: .authorized, resultLevel: "full"),
        Row(
            service: "contacts", level: "limited", options: ["selectItems", "allowFull", "deny"], choice: "deny",
            status: .denied, resultLevel: nil),
    ]

    @Test(arguments: rows)
    func choiceGivesResult(row: Row) throws {
        let app = try TestApp()
        try app.registerApp()
        let prompt = try app.prompt(row.service, row.level)
        #expect(prompt.options == row.options)
        #expect(prompt.kind == .request)
        let result = try app.decide(prompt, row.choice)
        #expect(result.prompt.state == .answered)
        #expect(result.prompt.choice == row.choice)
        #expect(result.prompt.answeredAt == TestApp.start)
        let authorization = try app.authorization(row.service)
        #expect(authorization == result.authorization)
        #expect(authorization.status == row.status)
        #expect(authorization.level == row.resultLevel)
        #expect(authorization.once == row.once)
        #expect(authorization.provisional == row.provisional)
        #expect(authorization.reason == .userConsent)
        #expect(authorization.purpose == prompt.purpose)
        #expect(authorization.expiresAt == (row.once ? TestApp.start.addingTimeInterval(3600) : nil))
        let entry = try #require(try app.audit().last)
        #expect(entry.action == "prompt.answered")
        #expect(entry.promptId == prompt.id)
    }

    @Test func alwaysPromptShowsTheWhenInUsePurposeString() throws {
        let app = try TestApp()
        try app.registerApp()
        let prompt = try app.prompt("location", "always")
        #expect(prompt.purposeKey == "NSLocationWhenInUseUsageDescription")
        #expect(prompt.level == "always")
    }

    @Test func purposeShownIsKeptWhenTheAppChangesIt() throws {
        let app = try TestApp()
        try app.registerApp()
        let prompt = try app.prompt("camera", "full")
        var changed = TestApp.allPurposes
        changed["NSCameraUsageDescription"] = "Something else."
        try app.registerApp("com.example.maps", changed)
        #expect(try app.decide(prompt, "allow").authorization.purpose == "Purpose for NSCameraUsageDescription.")
    }

    @Test func decisionErrors() throws {
        let app = try TestApp()
        try app.registerApp()
        #expect(try app.send(.post, "/v1/prompts/nope/decision", json: #"{"choice":"allow"}"#).problemType == .notFound)
        let prompt = try app.prompt("camera", "full")
        let seq = try app.lastSeq()
        let invalid = try app.send(.post, "/v1/prompts/\(prompt.id)/decision", json: #"{"choice":"allowOnce"}"#)
        #expect(invalid.status == 422)
        #expect(invalid.problemType == .invalidChoice)
        #expect(invalid.problem?.allowed == ["allow", "deny"])
        #expect(try app.send(.post, "/v1/prompts/\(prompt.id)/decision", json: #"{"choice":"maybe"}"#).status == 422)
        #expect(try app.send(.post, "/v1/prompts/\(prompt.id)/decision", json: #"{"choise":"allow"}"#).status == 400)
        #expect(try app.lastSeq() == seq)
        _ = try app.decide(prompt, "allow")
        let again = try app.send(.post, "/v1/prompts/\(prompt.id)/decision", json: #"{"choice":"deny"}"#)
        #expect(again.status == 409)
        #expect(again.problemType == .promptNotPending)
        #expect(try app.authorization("camera").status == .authorized)
    }

    @Test func upgradePromptViaBackgroundLocationUsed() throws {
        for (choice, level, provisional) in [("keepWhileUsing", "whenInUse", false), ("changeToAlways", "always", false)] {
            let app = try TestApp()
            try app.registerApp()
            let granted = try app.grant("location", "always", "allowWhileUsing")
            #expect(granted.provisional)
            let response = try app.lifecycle("backgroundLocationUsed")
            #expect(response.status == 200)
            let upgrade = try #require(try response.decode(LifecycleResult.self).prompt)
            #expect(upgrade.kind == .upgrade)
            #expect(upgrade.options == ["keepWhileUsing", "changeToAlways"])
            #expect(upgrade.purposeKey == "NSLocationAlwaysAndWhenInUseUsageDescription")
            #expect(try app.lifecycle("backgroundLocationUsed").decode(LifecycleResult.self).prompt?.id == upgrade.id)
            let result = try app.decide(upgrade, choice).authorization
            #expect(result.level == level)
            #expect(result.provisional == provisional)
            // Never prompted again: the grant is no longer provisional.
            #expect(try app.lifecycle("backgroundLocationUsed").decode(LifecycleResult.self).prompt == nil)
            #expect(try app.request("location", "always").status == 200)
        }
    }

    @Test func noUpgradePromptWithoutProvisionalGrant() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("location", "whenInUse", "allowWhileUsing")
        let result = try app.lifecycle("backgroundLocationUsed").decode(LifecycleResult.self)
        #expect(result.prompt == nil)
        #expect(result.changed.isEmpty)
    }
}
