import Foundation
import HTTPCore
import PermissionWire
import Testing

@testable import PermissionAPI

/// The AuthZEN Authorization API 1.0 (SPEC §11): a decision is the status read's effective
/// authorization, a denial is `200`, every malformed field a `400` naming it, an app key only
/// for its own app, batches in order with their short-circuit semantics.
@Suite struct AuthZENTests {
    static func body(app: String = "com.example.maps", user: String = "u42", action: String) -> String {
        #"{"subject":{"type":"app","id":"\#(app)"},"action":{"name":"\#(action)"},"resource":{"type":"user","id":"\#(user)"}}"#
    }

    static func evaluate(
        _ app: TestApp, _ action: String, user: String = "u42", appID: String = "com.example.maps",
        headers: [(String, String)] = []
    ) throws -> AccessEvaluationResponse {
        let response = try app.send(
            .post, "/access/v1/evaluation", json: body(app: appID, user: user, action: action), headers: headers)
        #expect(response.status == 200, "\(action): \(response.text)")
        return try response.decode(AccessEvaluationResponse.self)
    }

    /// The decision's context is the status read's status, reason and level.
    static func expectSameAsStatusRead(
        _ app: TestApp, _ service: String, _ action: String, decision: Bool, user: String = "u42",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let read = try app.authorization(service, user: user)
        let answer = try evaluate(app, action, user: user)
        #expect(answer.decision == decision, "\(action)", sourceLocation: sourceLocation)
        #expect(
            answer.context
                == AccessDecisionContext(
                    status: read.status.rawValue, reason: read.reason.rawValue, level: read.level,
                    promptRequired: read.status == .notDetermined), "\(action)", sourceLocation: sourceLocation)
    }

    @Test func neverAskedIsADenialThatNeedsAPromptAndMatchesTheEncoder() throws {
        let app = try TestApp()
        let response = try app.send(.post, "/access/v1/evaluation", json: Self.body(action: "camera"))
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        let answer = try response.decode(AccessEvaluationResponse.self)
        #expect(
            answer
                == AccessEvaluationResponse(
                    decision: false,
                    context: AccessDecisionContext(status: "notDetermined", reason: "default", level: nil, promptRequired: true)))
        #expect(response.body == (try WireEncoder.encode(answer)), "the hand-written encoder writes what JSONEncoder would")
        #expect(
            response.text
                == #"{"context":{"level":null,"prompt_required":true,"reason":"default","status":"notDetermined"},"decision":false}"#
        )
        #expect(response.headers["Permission-Revision"] == nil, "a read, not a write")
    }

    /// `prompt_required` follows the request flow beyond notDetermined: Add Photos Only asked
    /// about Full Access needs a prompt (the request for it prompts), While Using asked about
    /// Always does not (the way there is the provisional flow), and a denial never does.
    @Test func aPromptIsRequiredWhereTheNextRequestWouldPrompt() throws {
        let app = try TestApp()
        try app.registerApp()
        #expect(try app.set("photos", #"{"status":"authorized","level":"addOnly"}"#).status == 200)
        let photos = try Self.evaluate(app, "photos.full", user: "u42")
        #expect(photos.decision == false && photos.context?.promptRequired == true)
        let asked = try app.send(
            .post, "/v1/users/u42/apps/com.example.maps/authorizations/photos/request", json: #"{"level":"full"}"#)
        #expect(asked.status == 202, "the request for it prompts: \(asked.text)")
        #expect(try app.set("location", #"{"status":"authorized","level":"whenInUse"}"#).status == 200)
        #expect(try Self.evaluate(app, "location.always", user: "u42").context?.promptRequired == false)
        #expect(try app.set("camera", #"{"status":"denied"}"#).status == 200)
        #expect(try Self.evaluate(app, "camera", user: "u42").context?.promptRequired == false)
    }

    @Test func theLevelAskedIsMetByItOrAStrongerOne() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("location", "whenInUse", "allowWhileUsing")
        try Self.expectSameAsStatusRead(app, "location", "location", decision: true)
        try Self.expectSameAsStatusRead(app, "location", "location.whenInUse", decision: true)
        try Self.expectSameAsStatusRead(app, "location", "location.always", decision: false)
        try app.set("location", #"{"status":"authorized","level":"always"}"#)
        try Self.expectSameAsStatusRead(app, "location", "location.whenInUse", decision: true)
        try Self.expectSameAsStatusRead(app, "location", "location.always", decision: true)
        try app.set("photos", #"{"status":"authorized","level":"limited"}"#)
        try Self.expectSameAsStatusRead(app, "photos", "photos.addOnly", decision: true)
        try Self.expectSameAsStatusRead(app, "photos", "photos.limited", decision: true)
        try Self.expectSameAsStatusRead(app, "photos", "photos.full", decision: false)
        try app.send(.post, TestApp.path("u42", "com.example.maps", "photos") + "/revoke")
        try Self.expectSameAsStatusRead(app, "photos", "photos", decision: false)
        #expect(try Self.evaluate(app, "photos").context?.reason == "userSet")
    }

    /// Every rule of the effective status, as the status read applies it.
    @Test func theEffectiveStatusRulesApplyExactlyAsOnTheStatusRead() throws {
        let app = try TestApp { $0.service.onceTTL = 10 }
        try app.registerApp()
        // Provisional Always: authorized always while it lasts.
        _ = try app.grant("location", "always", "allowWhileUsing")
        #expect(try app.authorization("location").provisional)
        try Self.expectSameAsStatusRead(app, "location", "location.always", decision: true)
        // The Location Services switch off: denied (servicesDisabled), the stored grant kept.
        try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":false}"#)
        try Self.expectSameAsStatusRead(app, "location", "location", decision: false)
        #expect(try Self.evaluate(app, "location").context?.reason == "servicesDisabled")
        try app.send(.put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":true}"#)
        try Self.expectSameAsStatusRead(app, "location", "location.always", decision: true)
        // A restriction beats everything; an allow policy pre-approves.
        try app.policy("r", #"{"service":"location","app":null,"user":"u42","effect":"restrict"}"#)
        try Self.expectSameAsStatusRead(app, "location", "location", decision: false)
        #expect(try Self.evaluate(app, "location").context?.status == "restricted")
        try app.policy("a", #"{"service":"photos","app":"com.example.maps","user":null,"effect":"allow","level":"limited"}"#)
        try Self.expectSameAsStatusRead(app, "photos", "photos.limited", decision: true)
        try Self.expectSameAsStatusRead(app, "photos", "photos.full", decision: false)
        // Allow Once, then its lapse.
        _ = try app.grant("location", "whenInUse", "allowOnce", user: "u7")
        try Self.expectSameAsStatusRead(app, "location", "location", decision: true, user: "u7")
        app.clock.advance(by: 10)
        try Self.expectSameAsStatusRead(app, "location", "location", decision: false, user: "u7")
        #expect(
            try Self.evaluate(app, "location", user: "u7").context
                == AccessDecisionContext(
                    status: "notDetermined", reason: "expired", level: nil, promptRequired: true))
        // An expiring grant, before and after its end (read before the sweeper writes it).
        let until = Timestamp.format(app.clock.now.addingTimeInterval(60))
        try app.set("camera", #"{"status":"authorized","level":"full","until":"\#(until)"}"#)
        try Self.expectSameAsStatusRead(app, "camera", "camera", decision: true)
        app.clock.advance(by: 60)
        try Self.expectSameAsStatusRead(app, "camera", "camera.full", decision: false)
    }

    @Test func aBatchTakesTheTopLevelDefaultsAndAnswersInOrder() throws {
        let app = try TestApp()
        try app.registerApp()
        try app.set("camera", #"{"status":"authorized","level":"full"}"#)
        try app.set("camera", #"{"status":"authorized","level":"full"}"#, user: "u7")
        let response = try app.send(
            .post, "/access/v1/evaluations",
            json: """
                {"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},
                 "resource":{"type":"user","id":"u42"},"context":{"time":"now"},
                 "evaluations":[{},{"resource":{"type":"user","id":"u8"}},{"action":{"name":"microphone"}},
                                {"resource":{"type":"user","id":"u7"},"context":{}}]}
                """)
        #expect(response.status == 200, "\(response.text)")
        let answers = try response.decode(AccessEvaluationsResponse.self)
        #expect(answers.evaluations.map(\.decision) == [true, false, false, true])
        #expect(answers.evaluations.map { $0.context?.status } == ["authorized", "notDetermined", "notDetermined", "authorized"])
        #expect(response.body == (try WireEncoder.encode(answers)))
    }

    @Test(arguments: [
        // (semantic, decisions of the items, expected answers)
        ("execute_all", [true, false, true, false], [true, false, true, false]),
        ("deny_on_first_deny", [true, false, true, false], [true, false]),
        ("deny_on_first_deny", [true, true, true, true], [true, true, true, true]),
        ("permit_on_first_permit", [false, false, true, false], [false, false, true]),
        ("permit_on_first_permit", [false, false, false, false], [false, false, false, false]),
        ("permit_on_first_permit", [true, false, false, false], [true]),
    ])
    func aShortCircuitStopsAfterTheDecidingItem(_ semantic: String, _ decisions: [Bool], _ expected: [Bool]) throws {
        let app = try TestApp()
        try app.registerApp()
        for (index, permit) in decisions.enumerated() where permit {
            try app.set("camera", #"{"status":"authorized","level":"full"}"#, user: "u\(index)")
        }
        let items = decisions.indices.map { #"{"resource":{"type":"user","id":"u\#($0)"}}"# }.joined(separator: ",")
        let response = try app.send(
            .post, "/access/v1/evaluations",
            json: """
                {"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},
                 "options":{"evaluations_semantic":"\(semantic)"},"evaluations":[\(items)]}
                """)
        #expect(response.status == 200, "\(response.text)")
        #expect(try response.decode(AccessEvaluationsResponse.self).evaluations.map(\.decision) == expected)
    }

    @Test func withoutEvaluationsTheBatchEndpointAnswersOneDecision() throws {
        let app = try TestApp()
        try app.registerApp()
        try app.set("camera", #"{"status":"authorized","level":"full"}"#)
        let response = try app.send(.post, "/access/v1/evaluations", json: Self.body(action: "camera"))
        #expect(response.status == 200, "\(response.text)")
        #expect(try response.decode(AccessEvaluationResponse.self).decision)
        #expect(!response.text.contains("evaluations"))
        // AuthZEN 1.0 §7.1: an empty array is the same as none.
        let empty = try app.send(
            .post, "/access/v1/evaluations", json: String(Self.body(action: "camera").dropLast()) + #","evaluations":[]}"#)
        #expect(empty.status == 200, "\(empty.text)")
        #expect(empty.text == response.text)
    }

    /// Each body → 400 with the problem type and a detail starting with the field it names;
    /// nothing is written.
    @Test(arguments: [
        ("/access/v1/evaluation", "not json", "invalid-json", ""),
        ("/access/v1/evaluation", "[]", "invalid-request", "expected an object"),
        (
            "/access/v1/evaluation", #"{"action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}"#, "invalid-request",
            "subject: required"
        ),
        (
            "/access/v1/evaluation", #"{"subject":{"type":"app","id":"com.example.maps"},"resource":{"type":"user","id":"u42"}}"#,
            "invalid-request", "action: required"
        ),
        (
            "/access/v1/evaluation", #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"}}"#,
            "invalid-request", "resource: required"
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":"com.example.maps","action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}"#,
            "invalid-request", "subject: expected an object"
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"user","id":"com.example.maps"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}"#,
            "invalid-request", "subject/type: must be \"app\""
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"app"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}"#, "invalid-request",
            "subject/id: required"
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"app","id":"maps"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}"#,
            "invalid-request", "subject/id: must be a reverse-DNS"
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"app","id":7},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}"#,
            "invalid-request", "subject/id: expected a string"
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"resource":{"type":"account","id":"u42"}}"#,
            "invalid-request", "resource/type: must be \"user\""
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"resource":{"type":"user","id":""}}"#,
            "invalid-request", "resource/id: "
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"app","id":"com.example.maps"},"action":{},"resource":{"type":"user","id":"u42"}}"#,
            "invalid-request", "action/name: required"
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":true},"resource":{"type":"user","id":"u42"}}"#,
            "invalid-request", "action/name: expected a string"
        ),
        (
            "/access/v1/evaluation", AuthZENTests.body(action: "teleport"), "invalid-request",
            "action/name: there is no service 'teleport'"
        ),
        (
            "/access/v1/evaluation", AuthZENTests.body(action: "location.sometimes"), "invalid-request",
            "action/name: the service 'location' has no level 'sometimes'"
        ),
        (
            "/access/v1/evaluation", AuthZENTests.body(action: "camera.whenInUse"), "invalid-request",
            "action/name: the service 'camera' has no level"
        ),
        ("/access/v1/evaluation", AuthZENTests.body(action: "Camera"), "invalid-request", "action/name: must be lowerCamel"),
        ("/access/v1/evaluation", AuthZENTests.body(action: "location."), "invalid-request", "action/name: must be lowerCamel"),
        (
            "/access/v1/evaluation", AuthZENTests.body(action: "location.always.x"), "invalid-request",
            "action/name: must be lowerCamel"
        ),
        ("/access/v1/evaluation", AuthZENTests.body(action: "all"), "invalid-request", "action/name: \"all\" is reserved"),
        ("/access/v1/evaluation", AuthZENTests.body(action: ""), "invalid-request", "action/name: must be lowerCamel"),
        (
            "/access/v1/evaluation",
            #"{"subjekt":{},"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}"#,
            "unknown-member", "subjekt: unknown member"
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"app","id":"com.example.maps","name":"Maps"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}"#,
            "unknown-member", "subject/name: unknown member"
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera","properties":[]},"resource":{"type":"user","id":"u42"}}"#,
            "invalid-request", "action/properties: expected an object"
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"},"context":"now"}"#,
            "invalid-request", "context: expected an object"
        ),
        (
            "/access/v1/evaluation",
            #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"},"evaluations":[]}"#,
            "unknown-member", "evaluations: unknown member"
        ),
        ("/access/v1/evaluations", #"{"evaluations":{}}"#, "invalid-request", "evaluations: expected an array"),
        ("/access/v1/evaluations", #"{"evaluations":[]}"#, "invalid-request", "subject: required member is missing"),
        (
            "/access/v1/evaluations",
            #"{"subject":{"type":"app","id":"com.example.maps"},"resource":{"type":"user","id":"u42"},"evaluations":[{"action":{"name":"camera"}}, {}]}"#,
            "invalid-request", "evaluations/1/action: required member is missing here and at the top level"
        ),
        (
            "/access/v1/evaluations",
            #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"evaluations":[{"resource":{"type":"user","id":"u42"}},{"resource":{"type":"group","id":"g"}}]}"#,
            "invalid-request", "evaluations/1/resource/type: must be \"user\""
        ),
        (
            "/access/v1/evaluations",
            #"{"subject":{"type":"app","id":"com.example.maps"},"resource":{"type":"user","id":"u42"},"evaluations":[{"action":{"name":"camera"}},{"action":{"name":"camera"}},{"action":{"name":"teleport"}}]}"#,
            "invalid-request", "evaluations/2/action/name: there is no service 'teleport'"
        ),
        (
            "/access/v1/evaluations",
            #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera.always"},"evaluations":[{"resource":{"type":"user","id":"u42"}}]}"#,
            "invalid-request", "action/name: the service 'camera' has no level 'always'"
        ),
        (
            "/access/v1/evaluations",
            #"{"evaluations":[{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"},"options":{}}]}"#,
            "unknown-member", "evaluations/0/options: unknown member"
        ),
        (
            "/access/v1/evaluations",
            #"{"options":{"evaluations_semantic":"first_deny"},"evaluations":[{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}]}"#,
            "invalid-request",
            "options/evaluations_semantic: must be one of execute_all, deny_on_first_deny, permit_on_first_permit"
        ),
        (
            "/access/v1/evaluations", #"{"options":{"evaluation_semantics":"execute_all"},"evaluations":[]}"#, "unknown-member",
            "options/evaluation_semantics: unknown member"
        ),
        (
            "/access/v1/evaluations", #"{"options":{"evaluations_semantic":1}}"#, "invalid-request",
            "options/evaluations_semantic: expected a string"
        ),
        ("/access/v1/evaluations", #"{"action":{"name":"camera"}}"#, "invalid-request", "subject: required member is missing"),
        // A top-level default is checked even when every item brings its own.
        (
            "/access/v1/evaluations",
            #"{"action":{"name":"AAA"},"subject":{"type":"app","id":"com.example.maps"},"resource":{"type":"user","id":"u42"},"evaluations":[{"action":{"name":"camera"}}]}"#,
            "invalid-request", "action/name: must be lowerCamel"
        ),
        (
            "/access/v1/evaluations",
            #"{"action":{"name":"teleport"},"subject":{"type":"app","id":"com.example.maps"},"resource":{"type":"user","id":"u42"},"evaluations":[{"action":{"name":"camera"}}]}"#,
            "invalid-request", "action/name: there is no service 'teleport'"
        ),
        (
            "/access/v1/evaluations",
            #"{"resource":{"type":"group","id":"g"},"evaluations":[{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"resource":{"type":"user","id":"u42"}}]}"#,
            "invalid-request", "resource/type: must be \"user\""
        ),
    ])
    func everyMalformedFieldIsA400NamingIt(_ path: String, _ json: String, _ type: String, _ detail: String) throws {
        let app = try TestApp()
        let before = try app.lastSeq()
        let response = try app.send(.post, path, json: json)
        #expect(response.status == 400, "\(response.text)")
        #expect(response.problem?.type == ProblemType.base + type, "\(response.text)")
        #expect(response.problem?.detail.hasPrefix(detail) == true, "\(response.problem?.detail ?? response.text)")
        #expect(try app.lastSeq() == before)
    }

    @Test func aBatchHoldsAtMost100ItemsAndABodyAtMostTheLimit() throws {
        let app = try TestApp()
        func batch(_ count: Int) -> String {
            let items = Array(repeating: #"{"resource":{"type":"user","id":"u42"}}"#, count: count).joined(separator: ",")
            return #"{"subject":{"type":"app","id":"com.example.maps"},"action":{"name":"camera"},"evaluations":[\#(items)]}"#
        }
        let full = try app.send(.post, "/access/v1/evaluations", json: batch(100))
        #expect(full.status == 200, "\(full.text)")
        #expect(try full.decode(AccessEvaluationsResponse.self).evaluations.count == 100)
        let over = try app.send(.post, "/access/v1/evaluations", json: batch(101))
        #expect(over.status == 400)
        #expect(over.problem?.detail.hasPrefix("evaluations: must hold at most 100 items, not 101") == true)
        let padding = String(repeating: " ", count: 65_536)
        let large = try app.send(.post, "/access/v1/evaluation", json: Self.body(action: "camera") + padding)
        #expect(large.status == 413)
        #expect(large.problemType == .payloadTooLarge)
        let plain = try app.send(
            .post, "/access/v1/evaluation", body: Array(Self.body(action: "camera").utf8),
            headers: [("Content-Type", "text/plain")])
        #expect(plain.status == 415)
    }

    @Test func anAppKeyEvaluatesOnlyItsOwnAppAndABatchIsRefusedWhole() throws {
        let app = try TestApp()
        try app.registerApp()
        try app.set("camera", #"{"status":"authorized","level":"full"}"#)
        let own = [("Authorization", "Bearer " + (try app.storeKey(role: .app, app: "com.example.maps").secret))]
        #expect(try Self.evaluate(app, "camera", headers: own).decision)
        let foreign = try app.send(
            .post, "/access/v1/evaluation", json: Self.body(app: "com.example.other", action: "camera"), headers: own)
        #expect(foreign.status == 403)
        #expect(foreign.problemType == .forbidden)
        #expect(foreign.problem?.detail.hasPrefix("subject/id: this key is bound to another app") == true)
        let mixed = try app.send(
            .post, "/access/v1/evaluations",
            json: """
                {"action":{"name":"camera"},"resource":{"type":"user","id":"u42"},
                 "evaluations":[{"subject":{"type":"app","id":"com.example.maps"}},{"subject":{"type":"app","id":"com.example.other"}}]}
                """, headers: own)
        #expect(mixed.status == 403, "one foreign item refuses the whole batch")
        #expect(mixed.problem?.detail.hasPrefix("evaluations/1/subject/id: this key is bound to another app") == true)
        let consent = [("Authorization", "Bearer " + (try app.storeKey(role: .consent).secret))]
        #expect(try Self.evaluate(app, "camera", appID: "com.example.other", headers: consent).decision == false)
        let auditor = [("Authorization", "Bearer " + (try app.storeKey(role: .auditor).secret))]
        #expect(try app.send(.post, "/access/v1/evaluation", json: Self.body(action: "camera"), headers: auditor).status == 403)
        #expect(
            try app.send(.post, "/access/v1/evaluation", json: Self.body(action: "camera"), headers: [("Authorization", "")])
                .status == 401)
    }

    @Test func theRequestIdIsEchoedOnDecisionsAndProblems() throws {
        let app = try TestApp()
        let id = "bfe9eb29-ab87-4ca3-be83-a1d5d8305716"
        let response = try app.send(
            .post, "/access/v1/evaluation", json: Self.body(action: "camera"), headers: [("X-Request-ID", id)])
        #expect(response.status == 200)
        #expect(response.headers["X-Request-Id"] == id)
        let problem = try app.send(
            .post, "/access/v1/evaluations", json: "{}", headers: [("X-Request-ID", id)])
        #expect(problem.status == 400)
        #expect(problem.headers["X-Request-Id"] == id && problem.problem?.requestId == id)
    }

    @Test func aConsistencyHeaderIsHonouredAsOnTheStatusRead() throws {
        let app = try TestApp()
        try app.registerApp()
        let set = try app.set("camera", #"{"status":"authorized","level":"full"}"#)
        let revision = try #require(set.headers["Permission-Revision"])
        let fresh = try app.send(
            .post, "/access/v1/evaluation", json: Self.body(action: "camera"),
            headers: [("Permission-Consistency", "at-least \(revision)")])
        #expect(fresh.status == 200)
        #expect(try fresh.decode(AccessEvaluationResponse.self).decision)
        let never = try app.send(
            .post, "/access/v1/evaluation", json: Self.body(action: "camera"),
            headers: [("Permission-Consistency", "at-least 999999")])
        #expect(never.status == 412)
    }

    @Test func theConfigurationNamesAbsoluteURLs() throws {
        let configured = try TestApp { $0.publicURL = "https://permissions.example.com/pdp" }
        let response = try configured.send(.get, "/.well-known/authzen-configuration", headers: [("Authorization", "")])
        #expect(response.status == 200)
        #expect(
            try response.decode(AuthZENConfiguration.self)
                == AuthZENConfiguration(
                    policyDecisionPoint: "https://permissions.example.com/pdp"))
        #expect(
            response.text.contains(#""access_evaluations_endpoint":"https://permissions.example.com/pdp/access/v1/evaluations""#))
        #expect(response.headers["Cache-Control"] == nil)
        let unconfigured = try TestApp()
        let fromHost = try unconfigured.send(.get, "/.well-known/authzen-configuration", headers: [("Authorization", "")])
        #expect(fromHost.status == 200)
        #expect(try fromHost.decode(AuthZENConfiguration.self).accessEvaluationEndpoint == "http://test/access/v1/evaluation")
        #expect(fromHost.headers["Cache-Control"] == "no-store", "a value the client chose is never cached for others")
    }

    /// Without `--public-url` the URLs are built from `Host`, which must name a host: `:80`
    /// would make `http://:80` (RFC 9110 §4.2.1 forbids an empty host in an `http` URI).
    @Test func onlyAnAuthorityWithAHostBuildsURLs() {
        for authority in ["test", "test:8080", "127.0.0.1:80", "[::1]:80", "[::1]"] {
            #expect(AuthZENController.namesAHost(authority), "\(authority)")
        }
        for authority in ["", ":80", ":"] { #expect(!AuthZENController.namesAHost(authority), "\(authority)") }
    }
}
