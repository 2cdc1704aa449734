import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

import struct PermissionDomain.LocationAlertSettings

/// The location alert on the consent pages (SPEC §11 "Location alerts"), in-process on either
/// store: the sweeper's `locationAlert` prompt shows iOS's reminder with the count of
/// background uses in English and German, the Always purpose string and its two buttons, none
/// bold; answering it through the form changes the location authorization as the API does,
/// and the history shows the answer.
@Suite struct ConsentLocationAlertPageTests {
    static let alwaysPurpose = "Purpose for NSLocationAlwaysAndWhenInUseUsageDescription."

    /// An app whose location alerts come one second after the first background use.
    static func app() throws -> TestApp {
        let app = try TestApp { $0.service.locationAlerts = LocationAlertSettings(intervals: [1]) }
        try app.registerApp()
        return app
    }

    /// Gives `user` Always in settings, reports `uses` background uses (the first an hour ago,
    /// dated with `usedAt`), lets the interval pass and sweeps: the location alert it issued.
    static func raise(_ app: TestApp, user: String, uses: Int) throws -> Prompt {
        #expect(try app.set("location", #"{"status":"authorized","level":"always"}"#, user: user).status == 200)
        for index in 0..<uses {
            let usedAt = Timestamp.format(app.clock.now.addingTimeInterval(index == 0 ? -3_600 : 0))
            let response = try app.send(
                .post, "/v1/users/\(user)/apps/com.example.maps/lifecycle",
                json: #"{"event":"backgroundLocationUsed","usedAt":"\#(usedAt)"}"#)
            #expect(response.status == 200, "\(response.text)")
            #expect(try response.decode(LifecycleResult.self).usageRecorded == true)
        }
        app.clock.advance(by: 2)
        app.application.sweepNow()
        let pending = try app.send(.get, "/v1/users/\(user)/prompts?state=pending").decode(PromptList.self).items
        let alerts = pending.filter { $0.kind == .locationAlert }
        #expect(alerts.count == 1, "one location alert: \(pending)")
        return try #require(alerts.first)
    }

    @Test func theAlertShowsTheCountThePurposeStringAndItsTwoButtonsInBothLanguages() throws {
        let app = try Self.app()
        let prompt = try Self.raise(app, user: "u42", uses: 14)
        #expect(prompt.backgroundUses == 14 && prompt.options == ["keepAlways", "changeToWhileUsing"])
        #expect(prompt.purposeKey == "NSLocationAlwaysAndWhenInUseUsageDescription" && prompt.level == "always")
        let cases: [(String, Bool, String, [String])] = [
            (
                "en-US,en;q=0.9", false,
                "“Maps” has been using your location in the background 14 times in the past 3 days. "
                    + "Do you want to continue to allow background location use?",
                ["Keep Always", "Change to Only While Using"]
            ),
            (
                "de-CH, de;q=0.9", true,
                "„Maps“ hat deinen Standort in den letzten 3 Tagen 14-mal im Hintergrund verwendet. "
                    + "Möchtest du die Standortverwendung im Hintergrund weiterhin erlauben?",
                ["„Immer“ beibehalten", "Zu „Beim Verwenden der App“ ändern"]
            ),
        ]
        for (language, german, title, labels) in cases {
            let page = try ConsentBrowser(app, acceptLanguage: language).get("/consent/")
            #expect(page.status == 200)
            #expect(page.text.contains(#"<html lang="\#(german ? "de" : "en")">"#))
            let alert = try Markup.alert(prompt.id, in: page.text)
            #expect(alert.contains(#"data-prompt-id="\#(prompt.id)" data-kind="locationAlert""#))
            #expect(alert.contains(#"aria-describedby="message-\#(prompt.id)""#))
            let shown = Markup.text(after: #"<h2 class="alert-title" id="title-\#(prompt.id)">"#, closing: "h2", in: alert)
            #expect(shown == Markup.isolating("Maps", in: title), "\(language)")
            let message = Markup.text(
                after: #"<p class="alert-message" id="message-\#(prompt.id)" dir="auto">"#, closing: "p", in: alert)
            #expect(message == Self.alwaysPurpose, "the Always purpose string")
            #expect(
                alert.contains(#"<form class="alert-actions" method="post" action="/consent/prompts/\#(prompt.id)/decision">"#))
            let buttons = Markup.buttons(alert)
            #expect(buttons.map(\.value) == ["keepAlways", "changeToWhileUsing"])
            #expect(buttons.map(\.label) == labels, "\(language)")
            #expect(buttons.allSatisfy { !$0.preferred }, "iOS sets neither in bold")
        }
    }

    @Test func oneUseIsOneTime() throws {
        let app = try Self.app()
        let prompt = try Self.raise(app, user: "u42", uses: 1)
        #expect(prompt.backgroundUses == 1)
        let alert = try Markup.alert(prompt.id, in: try ConsentBrowser(app).get("/consent/").text)
        #expect(alert.contains("in the background 1 time in the past 3 days."), "\(alert)")
        let german = try Markup.alert(prompt.id, in: try ConsentBrowser(app, acceptLanguage: "de").get("/consent/").text)
        #expect(german.contains("in den letzten 3 Tagen 1-mal im Hintergrund verwendet."), "\(german)")
    }

    /// `changeToWhileUsing` through the form: While Using (`userConsent`); `keepAlways`: Always
    /// as it was. Each is one `prompt.answered` entry by the session, shown in the history.
    @Test func answeringThroughTheFormChangesOrKeepsTheGrantAndTheHistoryShowsIt() throws {
        let app = try Self.app()
        let cases: [(user: String, choice: String, level: String, label: (en: String, de: String))] = [
            ("u1", "changeToWhileUsing", "whenInUse", ("Change to Only While Using", "Zu „Beim Verwenden der App“ ändern")),
            ("u2", "keepAlways", "always", ("Keep Always", "„Immer“ beibehalten")),
        ]
        for (user, choice, level, label) in cases {
            let prompt = try Self.raise(app, user: user, uses: 3)
            let before = try app.authorization("location", user: user)
            #expect(before.status == .authorized && before.level == "always" && before.reason == .userSet)
            let browser = try ConsentBrowser(app, user: user)
            let seq = try app.lastSeq()
            let response = try browser.decide(prompt.id, choice)
            #expect(response.status == 303, "\(choice): \(response.text)")
            #expect(response.headers["Location"] == "/consent/?done=decided")
            #expect(try app.promptState(prompt) == .answered)

            let after = try app.authorization("location", user: user)
            #expect(after.status == .authorized && after.level == level, "\(choice)")
            if choice == "changeToWhileUsing" {
                #expect(after.reason == .userConsent && after.purpose == Self.alwaysPurpose && !after.provisional)
            } else {
                #expect(after == before, "keepAlways keeps the grant as it was")
            }

            let entries = try app.audit("after=\(seq)")
            #expect(entries.map(\.action) == ["prompt.answered"], "\(choice): one entry")
            let entry = try #require(entries.first)
            #expect(entry.promptId == prompt.id && entry.user == user && entry.service == "location")
            #expect(entry.actor.role == "user" && entry.actor.keyId?.hasPrefix("cs_") == true)
            #expect(entry.detail?["choice"] == choice && entry.detail?["kind"] == "locationAlert")
            #expect(entry.to?.level == level)

            let page = try browser.get("/consent/?done=decided").text
            #expect(!page.contains(#"data-prompt-id="\#(prompt.id)""#), "answered: no longer shown")
            for (language, what) in [("en", "You answered “\(label.en)”"), ("de", "Du hast „\(label.de)“ geantwortet")] {
                var reader = browser
                reader.acceptLanguage = language
                let history = try reader.get("/consent/history").text
                let item = try #require(
                    history.firstMatch(of: try Regex(#"<li data-seq="\#(entry.seq)">.*?</li>"#)).map { String($0.0) },
                    "\(choice): the answer in the history (\(language))")
                #expect(
                    Markup.text(after: #"<span class="what">"#, closing: "span", in: item) == what, "\(choice) \(language)")
            }
        }
    }

    /// The history says who asked: the system's reminder, not the app asking for access.
    @Test func theHistoryNamesTheAlertForWhatItIs() throws {
        let app = try Self.app()
        let prompt = try Self.raise(app, user: "u42", uses: 2)
        let created = try #require(try app.audit("action=prompt.created").first { $0.promptId == prompt.id })
        #expect(created.actor.role == "system" && created.detail?["backgroundUses"] == "2")
        for (language, what) in [
            ("en", "Asked whether to keep allowing background location use"),
            ("de", "Hat gefragt, ob die Standortverwendung im Hintergrund erlaubt bleiben soll"),
        ] {
            let history = try ConsentBrowser(app, acceptLanguage: language).get("/consent/history").text
            let item = try #require(
                history.firstMatch(of: try Regex(#"<li data-seq="\#(created.seq)">.*?</li>"#)).map { String($0.0) })
            #expect(Markup.text(after: #"<span class="what">"#, closing: "span", in: item) == what, "\(language)")
        }
    }
}
