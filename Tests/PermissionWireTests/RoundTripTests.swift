import Foundation
import PermissionWire
import Testing

/// Every shape survives `WireEncoder` → `WireDecoder` unchanged; request bodies also survive
/// the strict decoder.
@Suite struct RoundTripTests {
    static func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try WireDecoder.decodeResponse(T.self, from: try WireEncoder.encode(value))
    }

    static func strictRoundTrip<T: RequestBody & Encodable & Equatable>(_ value: T) throws -> T {
        try WireDecoder.decode(T.self, from: try WireEncoder.encode(value))
    }

    @Test func responseShapes() throws {
        #expect(try Self.roundTrip(Fixtures.authorization) == Fixtures.authorization)
        #expect(try Self.roundTrip(Fixtures.onceGrant) == Fixtures.onceGrant)
        let list = AuthorizationList(items: [Fixtures.authorization, Fixtures.undetermined], nextCursor: "c2")
        #expect(try Self.roundTrip(list) == list)
        #expect(try Self.roundTrip(AuthorizationList(items: [])) == AuthorizationList(items: []))
        let outcome = RequestOutcome(authorization: Fixtures.undetermined, prompt: Fixtures.prompt)
        #expect(try Self.roundTrip(outcome) == outcome)
        #expect(
            try Self.roundTrip(RequestOutcome(authorization: Fixtures.authorization))
                == RequestOutcome(authorization: Fixtures.authorization))
        #expect(try Self.roundTrip(Fixtures.prompt) == Fixtures.prompt)
        var buttonPrompt = Fixtures.prompt
        buttonPrompt.kind = .locationButton
        buttonPrompt.options = ["allowOnce", "deny"]
        for result in [
            LocationButtonResult(outcome: .prompted, authorization: Fixtures.undetermined, prompt: buttonPrompt),
            LocationButtonResult(outcome: .granted, authorization: Fixtures.onceGrant),
            LocationButtonResult(outcome: .unchanged, why: .servicesDisabled, authorization: Fixtures.undetermined),
        ] {
            #expect(try Self.roundTrip(result) == result)
        }
        let tooMany = Problem(
            .tooManyPrompts, detail: "full", requestId: "r1")
        var named = tooMany
        named.limit = 3
        named.pending = [Problem.PendingPrompt(id: "p_01J", service: "camera")]
        #expect(try Self.roundTrip(named) == named)
        #expect(tooMany.status == 429 && tooMany.title == "Too many pending prompts")
        #expect(try Self.roundTrip(Fixtures.answeredPrompt) == Fixtures.answeredPrompt)
        let prompts = PromptList(items: [Fixtures.prompt, Fixtures.answeredPrompt], nextCursor: nil)
        #expect(try Self.roundTrip(prompts) == prompts)
        #expect(try Self.roundTrip(Fixtures.policy) == Fixtures.policy)
        #expect(try Self.roundTrip(Fixtures.allowPolicy) == Fixtures.allowPolicy)
        let policies = PolicyList(items: [Fixtures.policy, Fixtures.allowPolicy], nextCursor: "p")
        #expect(try Self.roundTrip(policies) == policies)
        #expect(try Self.roundTrip(ResetResult(count: 12)) == ResetResult(count: 12))
        #expect(try Self.roundTrip(Fixtures.app) == Fixtures.app)
        #expect(
            try Self.roundTrip(AppList(items: [Fixtures.app], nextCursor: "a")) == AppList(items: [Fixtures.app], nextCursor: "a")
        )
        #expect(try Self.roundTrip(Fixtures.service) == Fixtures.service)
        #expect(try Self.roundTrip(ServiceList(items: [Fixtures.service])) == ServiceList(items: [Fixtures.service]))
        #expect(try Self.roundTrip(Fixtures.auditEntry) == Fixtures.auditEntry)
        #expect(try Self.roundTrip(Fixtures.systemEntry) == Fixtures.systemEntry)
        let page = AuditPage(items: [Fixtures.auditEntry, Fixtures.systemEntry], nextAfter: 18)
        #expect(try Self.roundTrip(page) == page)
        let verification = AuditVerification(valid: false, checked: 18, lastSeq: 18, headHash: "ff", firstInvalidSeq: 7)
        #expect(try Self.roundTrip(verification) == verification)
        #expect(try Self.roundTrip(Fixtures.problem) == Fixtures.problem)
        #expect(try Self.roundTrip(Fixtures.apiKey) == Fixtures.apiKey)
        #expect(try Self.roundTrip(APIKeyList(items: [Fixtures.apiKey])) == APIKeyList(items: [Fixtures.apiKey]))
        let issued = IssuedAPIKey(key: Fixtures.apiKey, secret: "pk_secret")
        #expect(try Self.roundTrip(issued) == issued)
        #expect(try Self.roundTrip(Health(status: "ok")) == Health(status: "ok"))
        let decision = DecisionResult(prompt: Fixtures.answeredPrompt, authorization: Fixtures.authorization)
        #expect(try Self.roundTrip(decision) == decision)
        let lifecycle = LifecycleResult(changed: [Fixtures.undetermined], prompt: Fixtures.prompt)
        #expect(try Self.roundTrip(lifecycle) == lifecycle)
        #expect(try Self.roundTrip(LifecycleResult(changed: [])) == LifecycleResult(changed: []))
    }

    @Test func requestBodiesThroughTheStrictDecoder() throws {
        #expect(try Self.strictRoundTrip(AccessRequest(level: "always")) == AccessRequest(level: "always"))
        #expect(try Self.strictRoundTrip(Decision(choice: "allowWhileUsing")) == Decision(choice: "allowWhileUsing"))
        let until = Date(timeIntervalSince1970: 1_795_000_000.123)
        #expect(try Self.strictRoundTrip(Decision(choice: "allow", until: until)) == Decision(choice: "allow", until: until))
        for change in [
            SettingsChange(status: .authorized, level: "always"), SettingsChange(status: .denied),
            SettingsChange(status: .notDetermined), SettingsChange(status: .authorized, level: "full", until: until),
        ] {
            #expect(try Self.strictRoundTrip(change) == change)
        }
        for event in LifecycleEvent.Event.allCases {
            #expect(try Self.strictRoundTrip(LifecycleEvent(event: event)) == LifecycleEvent(event: event))
        }
        #expect(
            try Self.strictRoundTrip(UserSettings(locationServicesEnabled: false)) == UserSettings(locationServicesEnabled: false)
        )
        let definition = PolicyDefinition(service: "camera", user: "u42", effect: .restrict)
        #expect(try Self.strictRoundTrip(definition) == definition)
        let allow = PolicyDefinition(service: "location", app: "com.example.fleet", effect: .allow, level: "always")
        #expect(try Self.strictRoundTrip(allow) == allow)
        for reset in [ResetRequest(service: "all"), ResetRequest(service: "location", app: "com.example.maps", user: "u42")] {
            #expect(try Self.strictRoundTrip(reset) == reset)
        }
        let registration = AppRegistration(name: "Maps", purposeStrings: ["NSCameraUsageDescription": "Scan / read"])
        #expect(try Self.strictRoundTrip(registration) == registration)
        let custom = ServiceRegistration(
            levels: ["read", "write"], purposeKeys: ["read": ["XRead"], "write": ["XRead", "XWrite"]])
        #expect(try Self.strictRoundTrip(custom) == custom)
        #expect(
            try Self.strictRoundTrip(NewAPIKey(role: .app, app: "com.example.maps", name: "maps"))
                == NewAPIKey(role: .app, app: "com.example.maps", name: "maps"))
    }

    @Test func outcomeOf200HasNoPromptMember() throws {
        let json = try JSONSerialization.jsonObject(
            with: Data(try WireEncoder.encode(RequestOutcome(authorization: Fixtures.authorization))))
        let object = try #require(json as? [String: Any])
        #expect(Set(object.keys) == ["authorization"])
    }

    @Test func policiesWriteTheirScopeAsNull() throws {
        let text = String(decoding: try WireEncoder.encode(Fixtures.policy), as: UTF8.self)
        #expect(text == #"{"app":null,"effect":"restrict","id":"no-camera","service":"camera","user":"u42"}"#)
    }

    @Test func specExampleDecodes() throws {
        let spec = #"""
            { "user": "u42", "app": "com.example.maps", "service": "location",
              "status": "authorized", "level": "whenInUse",
              "provisional": false, "once": false, "expiresAt": null,
              "reason": "userConsent", "purpose": "Your location is used to show nearby stops.",
              "updatedAt": "2026-11-22T10:00:00Z", "version": 3 }
            """#
        #expect(try WireDecoder.decodeResponse(Authorization.self, from: Array(spec.utf8)) == Fixtures.authorization)
    }

    @Test func responsesTolerateMembersANewerServerAdds() throws {
        let json = #"{"count": 3, "elapsedMs": 12}"#
        #expect(try WireDecoder.decodeResponse(ResetResult.self, from: Array(json.utf8)) == ResetResult(count: 3))
    }

    @Test func problemTypesAreStable() {
        #expect(ProblemType.allCases.count == Set(ProblemType.allCases.map(\.uri)).count)
        for type in ProblemType.allCases {
            #expect(ProblemType(uri: type.uri) == type)
            #expect((400...599).contains(type.status))
        }
        #expect(ProblemType.restricted.status == 409)
        #expect(ProblemType.missingPurposeString.uri == "https://permissions.example/problems/missing-purpose-string")
        #expect(ProblemType(uri: "https://other.example/problems/restricted") == nil)
    }
}
