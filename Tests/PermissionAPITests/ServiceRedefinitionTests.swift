import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// Redefining a custom service (`PUT /v1/services/{service}`): a definition that drops a level
/// stored authorizations hold or pending prompts ask for is `409 level-in-use` and changes
/// nothing, so the status read and AuthZEN never meet a level the service lacks.
@Suite struct ServiceRedefinitionTests {
    static let twoLevels = #"{"levels":["read","readWrite"],"purposeKeys":{"read":["XRead"],"readWrite":["XRead","XWrite"]}}"#
    static let readOnly = #"{"levels":["read"],"purposeKeys":{"read":["XRead"]}}"#
    static let notes = "com.example.notes"

    /// A TestApp with `healthRecords` (read, readWrite) and an app with both purpose strings.
    static func setUp() throws -> TestApp {
        let app = try TestApp()
        #expect(try app.send(.put, "/v1/services/healthRecords", json: twoLevels).status == 201)
        try app.registerApp(notes, ["XRead": "To read your records.", "XWrite": "To add to your records."])
        return app
    }

    static func evaluate(_ app: TestApp, user: String, action: String) throws -> (decision: Bool, status: String?) {
        let body =
            #"{"subject":{"type":"app","id":"\#(notes)"},"resource":{"type":"user","id":"\#(user)"},"#
            + #""action":{"name":"\#(action)"}}"#
        let response = try app.send(.post, "/access/v1/evaluation", json: body)
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let context = object?["context"] as? [String: Any]
        return (object?["decision"] as? Bool ?? false, context?["status"] as? String)
    }

    @Test func droppingALevelAuthorizationsHoldIsRefused() throws {
        let app = try Self.setUp()
        let granted = try app.set(
            "healthRecords", #"{"status":"authorized","level":"readWrite"}"#, user: "u5", app: Self.notes)
        #expect(granted.status == 200)
        try app.set("healthRecords", #"{"status":"authorized","level":"readWrite"}"#, user: "u6", app: Self.notes)
        try app.set("healthRecords", #"{"status":"authorized","level":"read"}"#, user: "u7", app: Self.notes)
        let seq = try app.lastSeq()

        let refused = try app.send(.put, "/v1/services/healthRecords", json: Self.readOnly)
        #expect(refused.status == 409)
        #expect(refused.problemType == .levelInUse)
        #expect(refused.headers["Content-Type"] == "application/problem+json")
        let problem = try #require(refused.problem)
        #expect(problem.level == "readWrite")
        #expect(problem.authorizations == 2)
        #expect(problem.pendingPrompts == 0)
        #expect(problem.detail.contains("'readWrite'") && problem.detail.contains("2 authorizations hold"))

        // Nothing changed: the definition, the audit log, and both read paths agree.
        #expect(try app.lastSeq() == seq)
        let definition = try app.send(.get, "/v1/services/healthRecords").decode(ServiceDefinition.self)
        #expect(definition.levels == ["read", "readWrite"])
        let read = try app.send(.get, "/v1/users/u5/apps/\(Self.notes)/authorizations/healthRecords")
            .decode(Authorization.self)
        #expect(read.status == .authorized && read.level == "readWrite")
        #expect(try Self.evaluate(app, user: "u5", action: "healthRecords") == (true, "authorized"))
        #expect(try Self.evaluate(app, user: "u5", action: "healthRecords.readWrite") == (true, "authorized"))

        // A definition that keeps every held level (here: adds one) is accepted.
        let wider =
            #"{"levels":["read","readWrite","share"],"#
            + #""purposeKeys":{"read":["XRead"],"readWrite":["XRead","XWrite"],"share":["XRead","XWrite"]}}"#
        #expect(try app.send(.put, "/v1/services/healthRecords", json: wider).status == 200)
        // Dropping `share`, which nothing holds, is accepted too.
        #expect(try app.send(.put, "/v1/services/healthRecords", json: Self.twoLevels).status == 200)

        // Once the holders are moved off the level, it may go.
        try app.set("healthRecords", #"{"status":"authorized","level":"read"}"#, user: "u5", app: Self.notes)
        let one = try app.send(.put, "/v1/services/healthRecords", json: Self.readOnly)
        #expect(one.status == 409)
        #expect(one.problem?.authorizations == 1)
        #expect(one.problem?.detail.contains("1 authorization holds") == true)
        try app.set("healthRecords", #"{"status":"denied"}"#, user: "u6", app: Self.notes)
        #expect(try app.send(.put, "/v1/services/healthRecords", json: Self.readOnly).status == 200)
        #expect(try Self.evaluate(app, user: "u5", action: "healthRecords") == (true, "authorized"))
    }

    @Test func droppingALevelPendingPromptsAskForIsRefused() throws {
        let app = try Self.setUp()
        let prompt = try app.prompt("healthRecords", "readWrite", user: "u8", app: Self.notes)
        let seq = try app.lastSeq()
        let refused = try app.send(.put, "/v1/services/healthRecords", json: Self.readOnly)
        #expect(refused.status == 409)
        #expect(refused.problemType == .levelInUse)
        #expect(refused.problem?.level == "readWrite")
        #expect(refused.problem?.authorizations == 0)
        #expect(refused.problem?.pendingPrompts == 1)
        #expect(try app.lastSeq() == seq)
        // The reset the problem names cancels the prompt; then the level may go.
        let reset = try app.send(
            .post, "/v1/reset", json: #"{"service":"healthRecords","app":"\#(Self.notes)"}"#)
        #expect(reset.status == 200)
        #expect(try app.promptState(prompt) == .cancelled)
        #expect(try app.send(.put, "/v1/services/healthRecords", json: Self.readOnly).status == 200)
    }

    /// An allow policy at the dropped level counts as a holder: it would otherwise stop
    /// applying, the user falling from authorized (policy) to notDetermined, with nothing
    /// audited. Once the policy grants a kept level, the level may go.
    @Test func droppingALevelAnAllowPolicyGrantsIsRefused() throws {
        let app = try Self.setUp()
        #expect(
            try app.policy("p1", #"{"service":"healthRecords","app":null,"user":"v1","effect":"allow","level":"readWrite"}"#)
                .status == 201)
        #expect(try Self.evaluate(app, user: "v1", action: "healthRecords.readWrite") == (true, "authorized"))
        let seq = try app.lastSeq()
        let refused = try app.send(.put, "/v1/services/healthRecords", json: Self.readOnly)
        #expect(refused.status == 409 && refused.problemType == .levelInUse)
        #expect(refused.problem?.level == "readWrite" && refused.problem?.policies == 1)
        #expect(refused.problem?.authorizations == 0 && refused.problem?.pendingPrompts == 0)
        #expect(refused.problem?.detail.contains("1 allow policy grants") == true)
        #expect(try app.lastSeq() == seq, "nothing written")
        #expect(
            try app.policy("p1", #"{"service":"healthRecords","app":null,"user":"v1","effect":"allow","level":"read"}"#)
                .status == 200)
        #expect(try app.send(.put, "/v1/services/healthRecords", json: Self.readOnly).status == 200)
        #expect(try Self.evaluate(app, user: "v1", action: "healthRecords") == (true, "authorized"))
    }

    @Test func aResetLetsTheLevelGo() throws {
        let app = try Self.setUp()
        try app.set("healthRecords", #"{"status":"authorized","level":"readWrite"}"#, user: "u5", app: Self.notes)
        #expect(try app.send(.put, "/v1/services/healthRecords", json: Self.readOnly).status == 409)
        #expect(try app.send(.post, "/v1/reset", json: #"{"service":"healthRecords"}"#).status == 200)
        #expect(try app.send(.put, "/v1/services/healthRecords", json: Self.readOnly).status == 200)
        let read = try app.send(.get, "/v1/users/u5/apps/\(Self.notes)/authorizations/healthRecords")
            .decode(Authorization.self)
        #expect(read.status == .notDetermined && read.level == nil)
    }

    /// Another service's records at a level of the same name do not hold this one's.
    @Test func onlyTheServicesOwnRecordsCount() throws {
        let app = try Self.setUp()
        #expect(try app.send(.put, "/v1/services/fridge", json: Self.twoLevels).status == 201)
        try app.set("fridge", #"{"status":"authorized","level":"readWrite"}"#, user: "u5", app: Self.notes)
        #expect(try app.send(.put, "/v1/services/healthRecords", json: Self.readOnly).status == 200)
        #expect(try app.send(.put, "/v1/services/fridge", json: Self.readOnly).status == 409)
    }

    /// Grants racing a redefinition that drops their level: whichever wins, no record is left
    /// at a level the service lacks (the check runs in the redefinition's write transaction).
    @Test func grantsRacingARedefinitionNeverOutliveTheirLevel() throws {
        let app = try Self.setUp()
        let users = (0..<16).map { "race\($0)" }
        let redefinitions = Outcomes()
        let grants = Outcomes()
        DispatchQueue.concurrentPerform(iterations: users.count + 1) { index in
            if index == users.count {
                for _ in 0..<8 {
                    let status = (try? app.send(.put, "/v1/services/healthRecords", json: Self.readOnly).status) ?? 0
                    redefinitions.add(status)
                    if status == 200 { return }
                }
                return
            }
            let status =
                (try? app.set(
                    "healthRecords", #"{"status":"authorized","level":"readWrite"}"#, user: users[index], app: Self.notes
                )
                .status) ?? 0
            grants.add(status)
        }
        // A grant before the redefinition is 200; one after it names a level there is not.
        #expect(grants.all.count == users.count && grants.all.allSatisfy { $0 == 200 || $0 == 422 }, "\(grants.all)")
        #expect(!redefinitions.all.isEmpty && redefinitions.all.allSatisfy { $0 == 200 || $0 == 409 })
        let definition = try app.send(.get, "/v1/services/healthRecords").decode(ServiceDefinition.self)
        var held: [String: String] = [:]
        for user in users {
            let read = try app.send(.get, "/v1/users/\(user)/apps/\(Self.notes)/authorizations/healthRecords")
                .decode(Authorization.self)
            if let level = read.level { held[user] = level }
        }
        if definition.levels.contains(where: { $0 == "readWrite" }) {
            // Every redefinition lost: grants held the level each time.
            #expect(redefinitions.all.allSatisfy { $0 == 409 } && !held.isEmpty, "\(redefinitions.all) \(held)")
        } else {
            // It won, so before any grant held the level: every grant came after it, and none
            // was made.
            #expect(redefinitions.all.last == 200)
            #expect(held.isEmpty, "records at a level the service lacks: \(held)")
            #expect(grants.all.allSatisfy { $0 == 422 }, "\(grants.all)")
        }
    }
}

/// Statuses collected from several threads.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [Int] = []
    func add(_ status: Int) { lock.withLock { statuses.append(status) } }
    var all: [Int] { lock.withLock { statuses } }
}
