import PermissionWire
import Testing

/// The AuthZEN bodies read without Foundation: members by hand, each failure naming its JSON
/// Pointer; the hand-written answers byte-identical to `WireEncoder`.
@Suite struct AccessEvaluationParserTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aSingleEvaluationWithPropertiesAndContext() throws {
        let request = try AccessEvaluationParser.single(
            Self.bytes(
                """
                {"subject":{"type":"app","id":"com.example.maps","properties":{"x":1}},
                 "action":{"name":"location.always","properties":{}},"resource":{"type":"user","id":"u42"},
                 "context":{"time":"1985-10-26T01:22-07:00"}}
                """))
        #expect(
            request
                == AccessEvaluationRequest(
                    subject: .app("com.example.maps"), action: AccessAction(name: "location.always"), resource: .user("u42")))
    }

    @Test func aBatchKeepsItsDefaultsItemsAndOptions() throws {
        let request = try AccessEvaluationParser.batch(
            Self.bytes(
                """
                {"subject":{"type":"app","id":"a.b"},"options":{"evaluations_semantic":"deny_on_first_deny"},
                 "evaluations":[{"action":{"name":"camera"}},{"resource":{"type":"user","id":"u1"}}]}
                """))
        #expect(request.subject == .app("a.b") && request.action == nil && request.resource == nil)
        #expect(
            request.evaluations == [
                AccessEvaluationItem(action: AccessAction(name: "camera")), AccessEvaluationItem(resource: .user("u1")),
            ])
        #expect(request.options?.evaluationsSemantic == "deny_on_first_deny")
        #expect(try AccessEvaluationParser.batch(Self.bytes("{}")) == AccessEvaluationsRequest())
    }

    @Test(arguments: [
        (#"{"subject":{"type":"app","id":"a.b"},"subject":{"type":"app","id":"a.c"}}"#, WireDecodingError.Kind.invalidJSON, ""),
        (#"{"subject":{"type":"app","id":"a.b","kind":"x"}}"#, .unknownMember, "/subject/kind"),
        (#"{"evaluations":[{"resource":{"type":"user"}}]}"#, .invalidValue, "/evaluations/0/resource/id"),
        (#"{"evaluations":[1]}"#, .invalidValue, "/evaluations/0"),
        (#"{"action":{"name":"a","zz":1,"aa":2}}"#, .unknownMember, "/action/aa"),
        (#"{"options":"all"}"#, .invalidValue, "/options"),
    ])
    func failuresNameTheirPointer(_ json: String, _ kind: WireDecodingError.Kind, _ path: String) {
        let error = #expect(throws: WireDecodingError.self) { try AccessEvaluationParser.batch(Self.bytes(json)) }
        #expect(error?.kind == kind)
        if kind != .invalidJSON { #expect(error?.path == path) }
    }

    @Test func theAnswersMatchTheEncoder() throws {
        let answers = [
            AccessEvaluationResponse(
                decision: true,
                context: AccessDecisionContext(
                    status: "authorized", reason: "userConsent", level: "whenInUse", promptRequired: false)),
            AccessEvaluationResponse(
                decision: false,
                context: AccessDecisionContext(
                    status: "notDetermined", reason: "default", level: nil, promptRequired: true)),
            AccessEvaluationResponse(decision: false, context: nil),
        ]
        for answer in answers { #expect(answer.jsonBytes == (try WireEncoder.encode(answer))) }
        let batch = AccessEvaluationsResponse(evaluations: answers)
        #expect(batch.jsonBytes == (try WireEncoder.encode(batch)))
        #expect(
            AccessEvaluationsResponse(evaluations: []).jsonBytes
                == (try WireEncoder.encode(AccessEvaluationsResponse(evaluations: []))))
    }
}
