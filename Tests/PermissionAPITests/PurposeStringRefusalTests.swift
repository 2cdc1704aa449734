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
