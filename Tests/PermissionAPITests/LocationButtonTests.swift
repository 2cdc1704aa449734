import Foundation
import PermissionAPI
import PermissionWire
import Testing

/// The location button over HTTP (SPEC §11): `POST .../authorizations/location/button` by the
/// app's own key (and admin): 202 with the `locationButton` prompt the first time, 200
/// `granted` without a prompt once confirmed (audited as `locationButton.granted`, lapsing
/// through the sweeper), 200 `unchanged` with why, 404 for another service; on both stores.
@Suite struct LocationButtonTests {
    static let path = TestApp.path("u42", "com.example.maps", "location") + "/button"

    static func app() throws -> (TestApp, [(String, String)]) {
        let app = try TestApp { $0.service.onceTTL = 60 }
        try app.registerApp()
        let key = try app.storeKey(role: .app, app: "com.example.maps").secret
        return (app, [("Authorization", "Bearer \(key)")])
    }

    @Test func theFirstPressPromptsThenEachPressGrantsAllowOnceWithoutAPrompt() throws {
        let (app, appKey) = try Self.app()
        let first = try app.send(.post, Self.path, headers: appKey)
        #expect(first.status == 202, "\(first.text)")
        let prompted = try first.decode(LocationButtonResult.self)
        #expect(prompted.outcome == .prompted && prompted.why == nil)
        let prompt = try #require(prompted.prompt)
        #expect(prompt.kind == .locationButton && prompt.options == ["allowOnce", "deny"] && prompt.level == "whenInUse")
        #expect(prompt.purposeKey == "NSLocationWhenInUseUsageDescription")
        #expect(first.headers["Location"] == "/v1/prompts/\(prompt.id)")
        #expect(try app.send(.post, Self.path, headers: appKey).decode(LocationButtonResult.self).prompt == prompt)

        let decided = try app.decide(prompt, "allowOnce")
        #expect(decided.authorization.once && decided.authorization.status == .authorized)
        app.clock.advance(by: 60)
        app.application.sweepNow()
        #expect(try app.authorization("location").status == .notDetermined)

        let seq = try app.lastSeq()
        let pressed = try app.send(.post, Self.path, headers: appKey + [("X-Request-ID", "tap-2")])
        #expect(pressed.status == 200, "\(pressed.text)")
        let granted = try pressed.decode(LocationButtonResult.self)
        #expect(granted.outcome == .granted && granted.prompt == nil && granted.why == nil)
        #expect(granted.authorization.status == .authorized && granted.authorization.level == "whenInUse")
        #expect(granted.authorization.once && granted.authorization.reason == .userConsent)
        #expect(granted.authorization.expiresAt == app.clock.now.addingTimeInterval(60))
        #expect(
            pressed.headers["ETag"] == (try app.send(.get, TestApp.path("u42", "com.example.maps", "location")).headers["ETag"]))
        let entries = try app.audit("after=\(seq)")
        #expect(entries.map(\.action) == ["locationButton.granted"], "one entry, no prompt")
        #expect(entries.first?.requestId == "tap-2" && entries.first?.actor.role == "app")

        app.clock.advance(by: 60)
        app.application.sweepNow()
        let lapsed = try #require(try app.audit("after=\(seq + 1)").first)
        #expect(lapsed.action == "authorization.expired" && lapsed.actor.role == "system")
    }

    /// Allow Once from the app's request already in force: the button's prompt is still due (a
    /// press renews Allow Once only once the button is confirmed), and confirming it works.
    @Test func theButtonsPromptCanBeAnsweredWhileAllowOnceIsInForce() throws {
        let (app, appKey) = try Self.app()
        let once = try app.grant("location", "whenInUse", "allowOnce")
        #expect(once.once && once.status == .authorized)
        let prompt = try #require(try app.send(.post, Self.path, headers: appKey).decode(LocationButtonResult.self).prompt)
        let decided = try app.send(.post, "/v1/prompts/\(prompt.id)/decision", json: #"{"choice":"allowOnce"}"#)
        #expect(decided.status == 200, "\(decided.text)")
        let pressed = try app.send(.post, Self.path, headers: appKey).decode(LocationButtonResult.self)
        #expect(pressed.outcome == .granted, "confirmed: each press grants")
    }

    @Test func denyOnTheButtonPromptLeavesTheAuthorizationAndTheNextPressAsksAgain() throws {
        let (app, appKey) = try Self.app()
        let prompt = try #require(try app.send(.post, Self.path, headers: appKey).decode(LocationButtonResult.self).prompt)
        let denied = try app.decide(prompt, "deny")
        #expect(denied.authorization.status == .notDetermined && denied.authorization.version == 0)
        let again = try app.send(.post, Self.path, headers: appKey)
        #expect(again.status == 202)
        #expect(try again.decode(LocationButtonResult.self).prompt?.id != prompt.id)
    }

    @Test func aStrongerGrantOrARefusalIsAnsweredUnchangedWithWhyAndWritesNothing() throws {
        let (app, appKey) = try Self.app()
        let cases: [(String, LocationButtonResult.Standing)] = [
            (#"{"status":"authorized","level":"always"}"#, .alreadyAuthorized),
            (#"{"status":"denied"}"#, .denied),
        ]
        for (body, why) in cases {
            #expect(try app.set("location", body).status == 200)
            let seq = try app.lastSeq()
            let response = try app.send(.post, Self.path, headers: appKey)
            #expect(response.status == 200, "\(response.text)")
            let result = try response.decode(LocationButtonResult.self)
            #expect(result.outcome == .unchanged && result.why == why && result.prompt == nil)
            #expect(try app.lastSeq() == seq)
        }
        #expect(try app.policy("kids", #"{"service":"location","user":"u42","effect":"restrict"}"#).status == 201)
        let restricted = try app.send(.post, Self.path, headers: appKey).decode(LocationButtonResult.self)
        #expect(restricted.why == .restricted && restricted.authorization.status == .restricted)
    }

    @Test func anotherServiceAnotherAppsKeyAndAMissingPurposeStringAreRefusedWritingNothing() throws {
        let (app, appKey) = try Self.app()
        let seq = try app.lastSeq()
        let camera = try app.send(.post, TestApp.path("u42", "com.example.maps", "camera") + "/button", headers: appKey)
        #expect(camera.status == 404 && camera.problemType == .notFound, "\(camera.text)")
        let other = try app.storeKey(role: .app, app: "com.example.other").secret
        let foreign = try app.send(.post, Self.path, headers: [("Authorization", "Bearer \(other)")])
        #expect(foreign.status == 403)
        let consent = try app.storeKey(role: .consent).secret
        #expect(try app.send(.post, Self.path, headers: [("Authorization", "Bearer \(consent)")]).status == 403)
        try app.registerApp("com.example.bare", ["NSCameraUsageDescription": "Scans tickets."])
        let bare = try app.send(.post, TestApp.path("u42", "com.example.bare", "location") + "/button")
        #expect(bare.status == 422 && bare.problem?.key == "NSLocationWhenInUseUsageDescription", "\(bare.text)")
        #expect(try app.lastSeq() == seq + 1, "only the registration was written")
    }

    /// The alert's title and buttons are checked with every other kind (ConsentPromptPageTests);
    /// here the note on what allowing the button means, in both languages.
    @Test func theConsentPageExplainsTheButtonBelowThePurposeString() throws {
        let (app, appKey) = try Self.app()
        let prompt = try #require(try app.send(.post, Self.path, headers: appKey).decode(LocationButtonResult.self).prompt)
        for (language, note) in [
            ("en", "If you allow it, each later tap of the button shares your location with “Maps” once,"),
            ("de", "Wenn du es erlaubst, teilt jedes spätere Tippen auf die Taste deinen Standort einmal mit „Maps“,"),
        ] {
            let page = try ConsentBrowser(app, acceptLanguage: language).get("/consent/")
            #expect(page.status == 200)
            let alert = try Markup.alert(prompt.id, in: page.text)
            #expect(alert.contains(#"aria-describedby="message-\#(prompt.id) note-\#(prompt.id)""#))
            let isolated = Markup.isolating("Maps", in: note)
            #expect(alert.contains(#"<p class="alert-note" id="note-\#(prompt.id)">\#(isolated)"#), "\(language)")
        }
        let request = try app.prompt("camera", "full")
        let plain = try Markup.alert(request.id, in: try ConsentBrowser(app).get("/consent/").text)
        #expect(!plain.contains("alert-note"), "only the button's prompt has the note")
    }
}
