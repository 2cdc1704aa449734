import Testing

@testable import PermissionAPI

/// SPEC §4: a request refused for a missing purpose string is counted, by key
/// (`permission_missing_purpose_strings_total`), with the number of keys bounded.
@Suite struct PurposeStringRefusalTests {
    @Test func aRefusedRequestIsCountedByTheKeyTheAppLacked() throws {
        let app = try TestApp()
        try app.registerApp("com.example.maps", ["NSCameraUsageDescription": "Scans receipts."])
        for _ in 0..<2 {
            let refused = try app.send(
                .post, TestApp.path("u42", "com.example.maps", "microphone") + "/request", json: #"{"level":"full"}"#)
            #expect(refused.status == 422, "\(refused.text)")
        }
        let unregistered = try app.send(
            .post, TestApp.path("u42", "com.example.unknown", "camera") + "/request", json: #"{"level":"full"}"#)
        #expect(unregistered.status == 422, "\(unregistered.text)")
        let counted = app.application.purposeStringRefusals.byKey
        #expect(counted.map(\.key) == ["NSCameraUsageDescription", "NSMicrophoneUsageDescription"])
        #expect(counted.map(\.count) == [1, 2])
    }

    @Test func keysPastTheBoundCountAsOther() {
        let refusals = PurposeStringRefusals()
        for index in 0..<(PurposeStringRefusals.maximumKeys + 10) { refusals.record("Key\(index)") }
        refusals.record("Key0")
        let counted = refusals.byKey
        #expect(counted.count == PurposeStringRefusals.maximumKeys + 1)
        #expect(counted.first { $0.key == PurposeStringRefusals.overflowLabel }?.count == 10)
        #expect(counted.first { $0.key == "Key0" }?.count == 2, "a key counted apart stays apart")
    }
}

/// Settings (SPEC §4) hold to the same rule as a request, as iOS Settings offers an app only the
/// levels its Info.plist describes; and an authorization a policy decides, restrict or allow,
/// is the operator's: neither settings nor a revocation change it.
@Suite struct SettingsRuleTests {
    @Test func authorizingInSettingsNeedsTheLevelsPurposeStringsAndNothingIsWrittenWithout() throws {
        let app = try TestApp()
        let unregistered = try app.set("camera", #"{"status":"authorized","level":"full"}"#)
        #expect(unregistered.status == 422 && unregistered.problemType == .missingPurposeString, "\(unregistered.text)")
        #expect(unregistered.problem?.detail.contains("NSCameraUsageDescription") == true, "\(unregistered.text)")
        #expect(try app.lastSeq() == 0, "nothing written")
        #expect(try app.set("camera", #"{"status":"denied"}"#).status == 200, "taking access away needs none")

        try app.registerApp("com.example.maps", ["NSLocationWhenInUseUsageDescription": "Shows nearby stops."])
        let seq = try app.lastSeq()
        let always = try app.set("location", #"{"status":"authorized","level":"always"}"#)
        #expect(always.status == 422 && always.problem?.detail.contains("NSLocationAlwaysAndWhenInUseUsageDescription") == true)
        #expect(try app.lastSeq() == seq)
        #expect(try app.set("location", #"{"status":"authorized","level":"whenInUse"}"#).status == 200)
        #expect(
            app.application.purposeStringRefusals.byKey.map(\.key) == [
                "NSCameraUsageDescription", "NSLocationAlwaysAndWhenInUseUsageDescription",
            ])
    }

    @Test func anAuthorizationAnAllowPolicyGrantsIsNotChangedOrRevokedByTheUser() throws {
        let app = try TestApp()
        try app.registerApp()
        #expect(try app.set("camera", #"{"status":"denied"}"#).status == 200)
        let policy = try app.policy(
            "camera-for-u42", #"{"service":"camera","app":null,"user":"u42","effect":"allow","level":"full"}"#)
        #expect(policy.status == 201, "\(policy.text)")
        let seq = try app.lastSeq()
        for response in [
            try app.set("camera", #"{"status":"denied"}"#),
            try app.send(.post, TestApp.path("u42", "com.example.maps", "camera") + "/revoke"),
        ] {
            #expect(response.status == 409 && response.problemType == .conflict, "\(response.text)")
            #expect(response.problem?.detail.contains("allow policy") == true, "\(response.text)")
        }
        #expect(try app.lastSeq() == seq, "nothing written")
        #expect(try app.authorization("camera").status == .authorized)
        #expect(try app.send(.delete, "/v1/policies/camera-for-u42").status == 204)
        #expect(try app.authorization("camera").status == .denied, "the user's own choice, kept")
    }
}
