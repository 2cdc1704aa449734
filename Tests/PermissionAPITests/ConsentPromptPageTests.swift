import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// The prompts page (SPEC §10), in-process on either store: every kind of prompt shows
/// exactly its options with the iOS labels in English and German, and answering through the
/// form is the same change as `POST /v1/prompts/{id}/decision` (same authorization, same audit
/// entry but for the actor, role `user`), recording the text and language shown.
@Suite struct ConsentPromptPageTests {
    /// One kind of prompt: how to raise it, its options, and its title in both languages.
    struct Kind: CustomTestStringConvertible, Sendable {
        let name: String
        let service: String
        let level: String
        /// Raised by the upgrade flow (provisional Always, then background use).
        var upgrade = false
        /// Raised by the first press of the location button.
        var button = false
        /// Granted first (a request above a grant).
        var before: (level: String, choice: String)?
        let options: [String]
        let titles: (en: String, de: String)
        var testDescription: String { name }
    }

    static let kinds: [Kind] = [
        Kind(
            name: "single level", service: "camera", level: "full", options: ["allow", "deny"],
            titles: ("“Maps” Would Like to Access the Camera", "„Maps“ möchte auf deine Kamera zugreifen")),
        Kind(
            name: "location whenInUse", service: "location", level: "whenInUse",
            options: ["allowOnce", "allowWhileUsing", "deny"],
            titles: ("“Maps” Would Like to Use Your Location", "„Maps“ möchte deinen Standort verwenden")),
        Kind(
            name: "location always", service: "location", level: "always",
            options: ["allowOnce", "allowWhileUsing", "deny"],
            titles: ("“Maps” Would Like to Use Your Location", "„Maps“ möchte deinen Standort verwenden")),
        Kind(
            name: "location upgrade", service: "location", level: "always", upgrade: true,
            options: ["keepWhileUsing", "changeToAlways"],
            titles: (
                "Allow “Maps” to also use your location even when you are not using the app?",
                "Darf „Maps“ deinen Standort auch verwenden, wenn du die App nicht verwendest?"
            )),
        Kind(
            name: "location button", service: "location", level: "whenInUse", button: true,
            options: ["allowOnce", "deny"],
            titles: (
                "Allow “Maps” to use your current location when you tap its location button?",
                "Darf „Maps“ deinen aktuellen Standort verwenden, wenn du auf seine Standorttaste tippst?"
            )),
        Kind(
            name: "photos", service: "photos", level: "full", options: ["selectItems", "allowFull", "deny"],
            titles: ("“Maps” Would Like to Access Your Photos", "„Maps“ möchte auf deine Fotos zugreifen")),
        Kind(
            name: "photos addOnly", service: "photos", level: "addOnly", options: ["allow", "deny"],
            titles: ("“Maps” Would Like to Add to Your Photos", "„Maps“ möchte zu deinen Fotos hinzufügen")),
        Kind(
            name: "photos above addOnly", service: "photos", level: "limited", before: ("addOnly", "allow"),
            options: ["selectItems", "allowFull", "deny"],
            titles: ("“Maps” Would Like to Access Your Photos", "„Maps“ möchte auf deine Fotos zugreifen")),
        Kind(
            name: "contacts", service: "contacts", level: "full", options: ["selectItems", "allowFull", "deny"],
            titles: ("“Maps” Would Like to Access Your Contacts", "„Maps“ möchte auf deine Kontakte zugreifen")),
        Kind(
            name: "calendars writeOnly", service: "calendars", level: "writeOnly", options: ["allow", "deny"],
            titles: (
                "“Maps” Would Like to Add Events to Your Calendar", "„Maps“ möchte Ereignisse zu deinem Kalender hinzufügen"
            )),
        Kind(
            name: "calendars above writeOnly", service: "calendars", level: "full", before: ("writeOnly", "allow"),
            options: ["allow", "deny"],
            titles: ("“Maps” Would Like to Access Your Calendar", "„Maps“ möchte auf deinen Kalender zugreifen")),
        Kind(
            name: "tracking", service: "tracking", level: "full", options: ["allow", "deny"],
            titles: (
                "Allow “Maps” to track your activity across other companies’ apps and websites?",
                "Darf „Maps“ deine Aktivitäten in Apps und auf Websites anderer Unternehmen erfassen?"
            )),
    ]

    /// The iOS labels (SPEC §10, pages.md).
    static func label(_ choice: String, service: String, german: Bool) -> String {
        if choice == "deny" && service == "tracking" {
            return german ? "App bitten, kein Tracking durchzuführen" : "Ask App Not to Track"
        }
        if choice == "selectItems" && service == "contacts" {
            return german ? "Kontakte auswählen …" : "Select Contacts…"
        }
        let labels: [String: (String, String)] = [
            "allowOnce": ("Allow Once", "Einmal erlauben"),
            "allowWhileUsing": ("Allow While Using App", "Beim Verwenden der App erlauben"),
            "deny": ("Don't Allow", "Nicht erlauben"),
            "keepWhileUsing": ("Keep Only While Using", "Nur beim Verwenden beibehalten"),
            "changeToAlways": ("Change to Always Allow", "Zu „Immer erlauben“ ändern"),
            "selectItems": ("Select Photos…", "Fotos auswählen …"),
            "allowFull": ("Allow Full Access", "Vollzugriff erlauben"),
            "allow": ("Allow", "Erlauben"),
        ]
        let pair = labels[choice] ?? ("?", "?")
        return german ? pair.1 : pair.0
    }

    /// Raises `kind`'s prompt for `user`.
    static func raise(_ kind: Kind, _ app: TestApp, user: String) throws -> Prompt {
        if kind.upgrade {
            _ = try app.grant("location", "always", "allowWhileUsing", user: user)
            let result = try app.lifecycle("backgroundLocationUsed", user: user).decode(LifecycleResult.self)
            return try #require(result.prompt)
        }
        if kind.button {
            let response = try app.send(.post, TestApp.path(user, "com.example.maps", "location") + "/button")
            return try #require(try response.decode(LocationButtonResult.self).prompt)
        }
        if let before = kind.before { _ = try app.grant(kind.service, before.level, before.choice, user: user) }
        return try app.prompt(kind.service, kind.level, user: user)
    }

    @Test(arguments: kinds) func everyKindShowsExactlyItsOptionsWithTheIOSLabels(_ kind: Kind) throws {
        let app = try TestApp()
        try app.registerApp()
        let prompt = try Self.raise(kind, app, user: "u42")
        #expect(prompt.options == kind.options, "the API's options")
        for (language, german) in [("en-US,en;q=0.9", false), ("de-CH, de;q=0.9, en;q=0.5", true), ("", false), ("fr", false)] {
            let browser = try ConsentBrowser(app, acceptLanguage: language)
            let page = try browser.get("/consent/")
            #expect(page.status == 200)
            #expect(page.text.contains(#"<html lang="\#(german ? "de" : "en")">"#), "\(language)")
            let alert = try Markup.alert(prompt.id, in: page.text)
            #expect(alert.contains(#"data-prompt-id="\#(prompt.id)" data-kind="\#(prompt.kind.rawValue)""#))
            let title = Markup.text(after: #"<h2 class="alert-title" id="title-\#(prompt.id)">"#, closing: "h2", in: alert)
            #expect(title == Markup.isolating("Maps", in: german ? kind.titles.de : kind.titles.en), "\(language)")
            let message = Markup.text(
                after: #"<p class="alert-message" id="message-\#(prompt.id)" dir="auto">"#, closing: "p", in: alert)
            #expect(message == prompt.purpose)
            #expect(
                alert.contains(#"<form class="alert-actions" method="post" action="/consent/prompts/\#(prompt.id)/decision">"#))
            let buttons = Markup.buttons(alert)
            #expect(buttons.map(\.value) == kind.options, "exactly the prompt's options, in order (\(language))")
            #expect(buttons.map(\.label) == kind.options.map { Self.label($0, service: kind.service, german: german) })
            #expect(buttons.filter { $0.value == "deny" }.allSatisfy { !$0.preferred }, "Don't Allow is not bold")
            #expect(buttons.allSatisfy { $0.describedBy == "title-\(prompt.id)" }, "each button described by its alert's title")
        }
    }

    /// Every option of every kind, once through the page (user p…) and once through the API
    /// (user a…): the same authorization and the same audit entry, the actor aside.
    @Test(arguments: kinds) func aDecisionThroughTheFormIsTheAPIsDecision(_ kind: Kind) throws {
        let app = try TestApp()
        try app.registerApp()
        for (index, choice) in kind.options.enumerated() {
            let pageUser = "p\(index)", apiUser = "a\(index)"
            let shown = try Self.raise(kind, app, user: pageUser)
            let other = try Self.raise(kind, app, user: apiUser)
            let browser = try ConsentBrowser(app, user: pageUser)
            let before = try app.lastSeq()
            let response = try browser.decide(shown.id, choice)
            #expect(response.status == 303, "\(choice): \(response.text)")
            #expect(response.headers["Location"] == "/consent/?done=decided")
            let entries = try app.audit("after=\(before)")
            #expect(entries.count == 1, "\(choice): one entry")
            _ = try app.decide(other, choice)
            let viaPage = try #require(entries.first)
            let viaAPI = try #require(try app.audit().last)
            #expect(viaPage.action == "prompt.answered" && viaAPI.action == "prompt.answered")
            #expect(viaPage.actor.role == "user" && viaPage.actor.keyId?.hasPrefix("cs_") == true)
            #expect(viaPage.promptId == shown.id && viaPage.user == pageUser)
            #expect(viaPage.from == viaAPI.from && viaPage.to == viaAPI.to, "\(choice)")
            #expect(viaPage.reason == viaAPI.reason && viaPage.purpose == viaAPI.purpose && viaPage.detail == viaAPI.detail)
            let page = try app.authorization(kind.service, user: pageUser)
            let api = try app.authorization(kind.service, user: apiUser)
            #expect(page.status == api.status && page.level == api.level, "\(choice)")
            #expect(page.provisional == api.provisional && page.once == api.once && page.reason == api.reason)
            #expect(page.purpose == api.purpose && page.purposeLanguage == api.purposeLanguage)
            let after = try browser.get("/consent/?done=decided")
            #expect(after.text.contains(#"<p id="flash" role="status" tabindex="-1" autofocus="">Your answer was saved.</p>"#))
            #expect(!after.text.contains("data-prompt-id=\"\(shown.id)\""), "answered: no longer shown")
        }
    }

    /// A purpose string is at most 2,000 bytes of UTF-8 as well as 500 characters: the longest
    /// one (500 four-byte emoji) still fits the form that answers its prompt on the page, where
    /// 500 family emoji (25 bytes each) would not, and is refused when the app registers it.
    @Test func theLongestPurposeStringsPromptIsAnsweredOnThePage() throws {
        let app = try TestApp()
        var purposes = TestApp.allPurposes
        purposes["NSCameraUsageDescription"] = String(repeating: "😀", count: 500)
        try app.registerApp("com.example.maps", purposes)
        let prompt = try app.prompt("camera", "full", user: "u7")
        let browser = try ConsentBrowser(app, user: "u7")
        let answered = try browser.decide(prompt.id, "deny")
        #expect(answered.status == 303, "\(answered.status) \(answered.text.prefix(300))")
        #expect(try app.authorization("camera", user: "u7").status == .denied)

        purposes["NSCameraUsageDescription"] = String(repeating: "👨‍👩‍👧‍👦", count: 500)
        let refused = try app.put(AppRegistration(name: "Maps", purposeStrings: purposes), as: "com.example.maps")
        #expect(refused.status == 400)
        #expect(refused.text.contains("at most 2,000 bytes of UTF-8"), "\(refused.text)")
        #expect(refused.text.contains("purposeStrings/NSCameraUsageDescription"), "\(refused.text)")
    }

    /// The page's Accept-Language picks the translation shown, and the decision records that
    /// text and its language, as the API does for a user whose settings locale is German.
    @Test func theTextAndLanguageShownAreWhatTheDecisionRecords() throws {
        let app = try TestApp()
        try LocalizedPurposeStringTests.registerLocalized(app)
        let german = LocalizedPurposeStringTests.german
        let viaPage = try app.prompt("camera", "full", user: "u42")
        #expect(viaPage.purposeLanguage == nil, "made in the base language")
        #expect(
            try app.send(.put, "/v1/users/u43/settings", json: #"{"locationServicesEnabled":true,"locale":"de"}"#).status == 200)
        let viaAPI = try app.prompt("camera", "full", user: "u43")
        #expect(viaAPI.purpose == german && viaAPI.purposeLanguage == "de")

        let browser = try ConsentBrowser(app, acceptLanguage: "de-CH, en;q=0.5")
        let page = try browser.get("/consent/").text
        let alert = try Markup.alert(viaPage.id, in: page)
        #expect(alert.contains(#"<p class="alert-message" id="message-\#(viaPage.id)" lang="de" dir="auto">\#(german)</p>"#))
        let english = try ConsentBrowser(app, user: "u42", acceptLanguage: "en").get("/consent/").text
        #expect(try Markup.alert(viaPage.id, in: english).contains(#"dir="auto">\#(viaPage.purpose)</p>"#), "base: no lang")
        #expect(!(try Markup.alert(viaPage.id, in: english).contains("lang=")), "no development language registered")

        let before = try app.lastSeq()
        let answered = try browser.submit(
            "/consent/prompts/\(viaPage.id)/decision", [("choice", "allow")] + (try browser.shownFields(viaPage.id)))
        #expect(
            answered.text.contains(#"<p id="flash" role="status" tabindex="-1" autofocus="">Deine Antwort wurde gesichert.</p>"#))
        _ = try app.decide(viaAPI, "allow")
        let entries = try app.audit("after=\(before)")
        #expect(entries.count == 2)
        let (pageEntry, apiEntry) = (entries[0], entries[1])
        #expect(pageEntry.purpose == german && pageEntry.detail?["purposeLanguage"] == "de")
        #expect(pageEntry.detail == apiEntry.detail && pageEntry.purpose == apiEntry.purpose)
        #expect(pageEntry.from == apiEntry.from && pageEntry.to == apiEntry.to && pageEntry.reason == apiEntry.reason)
        #expect(pageEntry.actor.role == "user" && apiEntry.actor.role == "admin")
        let authorization = try app.authorization("camera", user: "u42")
        #expect(authorization.purpose == german && authorization.purposeLanguage == "de")
    }

    /// A base string is marked with the app's development language, so that under a page in
    /// another language a screen reader reads it in its own (WCAG 3.1.2); a translation keeps
    /// its own; the form still says the base string was shown (no language).
    @Test func aBaseStringCarriesTheAppsDevelopmentLanguage() throws {
        let app = try TestApp()
        let registration = AppRegistration(
            name: "Maps", purposeStrings: TestApp.allPurposes,
            localizedPurposeStrings: ["fr": [LocalizedPurposeStringTests.camera: "La caméra lit les billets."]],
            developmentLanguage: "en")
        #expect(try app.put(registration, as: "com.example.maps").status == 201)
        let prompt = try app.prompt("camera", "full", user: "u42")
        let german = try ConsentBrowser(app, user: "u42", acceptLanguage: "de").get("/consent/").text
        #expect(german.contains(#"<html lang="de">"#))
        let alert = try Markup.alert(prompt.id, in: german)
        #expect(alert.contains(#"id="message-\#(prompt.id)" lang="en" dir="auto">\#(prompt.purpose)</p>"#), "\(alert)")
        #expect(alert.contains(#"<input type="hidden" name="shownLanguage" value="">"#), "the base string, as recorded")
        let french = try ConsentBrowser(app, user: "u42", acceptLanguage: "fr").get("/consent/").text
        #expect(try Markup.alert(prompt.id, in: french).contains(#"lang="fr" dir="auto">La caméra lit les billets.</p>"#))
    }

    /// A page shows a translation; the app registers a new one before the person answers. The
    /// answer to the old text is refused (409, nothing written) and the page shows the new text;
    /// the answer to that is recorded with it.
    @Test func anAnswerToATextTheAppReplacedIsRefused() throws {
        let app = try TestApp()
        try LocalizedPurposeStringTests.registerLocalized(app)
        let prompt = try app.prompt("camera", "full", user: "u42")
        let browser = try ConsentBrowser(app, acceptLanguage: "de")
        let shown = try browser.shownFields(prompt.id)
        #expect(shown.map(\.1) == [LocalizedPurposeStringTests.german, "de"])
        let replaced = "Die Kamera liest QR-Codes."
        let registration = AppRegistration(
            name: "Maps", purposeStrings: TestApp.allPurposes,
            localizedPurposeStrings: ["de": [LocalizedPurposeStringTests.camera: replaced]])
        #expect(try app.put(registration).status == 200)
        let before = try app.lastSeq()
        let refused = try browser.decide(prompt.id, "allow", shown: shown)
        #expect(refused.status == 409)
        #expect(refused.text.contains("Die App hat geändert, was sie zu dieser Anfrage sagt."))
        #expect(try Markup.alert(prompt.id, in: refused.text).contains(replaced), "the page shows the new text")
        #expect(try app.lastSeq() == before && app.promptState(prompt) == .pending, "nothing written")
        #expect(try browser.decide(prompt.id, "allow").status == 303)
        let authorization = try app.authorization("camera", user: "u42")
        #expect(authorization.purpose == replaced && authorization.purposeLanguage == "de")
        #expect(try app.audit("after=\(before)").map(\.purpose) == [replaced])
    }

    @Test func refusedDecisionsChangeNothing() throws {
        let app = try TestApp()
        try app.registerApp()
        let own = try app.prompt("camera", "full", user: "u42")
        let foreign = try app.prompt("camera", "full", user: "u43")
        let browser = try ConsentBrowser(app)
        let seq = try app.lastSeq()
        let form = ("Content-Type", "application/x-www-form-urlencoded")
        // Without the CSRF token, or with another session's.
        let other = try ConsentBrowser(app, user: "u43")
        let otherToken = try other.csrf()
        let checked = try app.lastSeq()
        for body in ["choice=allow", "csrf=\(otherToken)&choice=allow", "csrf=&choice=allow"] {
            let response = try app.send(
                .post, "/consent/prompts/\(own.id)/decision", body: Array(body.utf8), headers: browser.headers + [form])
            #expect(response.status == 403, "\(body)")
        }
        // Another user's prompt, and prompts that do not exist, are not found.
        for id in [foreign.id, "p-unknown", "%3Cb%3E"] {
            let response = try browser.decide(id, "allow")
            #expect(response.status == 404, "\(id)")
            #expect(!response.text.contains("Purpose"))
        }
        // A choice the prompt does not offer, or none.
        let shown = try browser.shownFields(own.id)
        #expect(shown.count == 2)
        let invalid = try browser.decide(own.id, "allowOnce", shown: shown)
        #expect(
            invalid.status == 400
                && invalid.text.contains(#"<p id="flash" class="error" role="alert" tabindex="-1" autofocus="">"#))
        #expect(try browser.post("/consent/prompts/\(own.id)/decision", []).status == 400)
        #expect(try app.lastSeq() == checked, "nothing was written")
        #expect(checked > seq, "(the other session's link was audited)")
        #expect(try app.promptState(own) == .pending && app.promptState(foreign) == .pending)
        // Answered once; a second answer is refused.
        let textless = try browser.post("/consent/prompts/\(own.id)/decision", [("choice", "deny")])
        #expect(textless.status == 400, "no text shown")
        #expect(textless.text.contains("This answer did not say which text you were shown."))
        #expect(try app.lastSeq() == checked, "nothing was written")
        #expect(try browser.decide(own.id, "deny", shown: shown).status == 303)
        let again = try browser.decide(own.id, "allow", shown: shown)
        #expect(again.status == 409 && again.text.contains("no longer waiting"))
        #expect(try app.authorization("camera").status == .denied)
    }

    /// A link to a prompt answered or ended meanwhile (a notification's deep link) says so and
    /// shows the prompts still waiting, not an empty list.
    @Test func aLinkToAnEndedPromptShowsThePromptsStillWaiting() throws {
        let app = try TestApp()
        try app.registerApp()
        let answered = try app.prompt("camera", "full")
        let waiting = try app.prompt("microphone", "full")
        _ = try app.decide(answered, "deny")
        let browser = try ConsentBrowser(app)
        let page = try browser.get("/consent/prompts/\(answered.id)")
        #expect(page.status == 200)
        #expect(
            page.text.contains(
                #"<p id="flash" class="error" role="alert" tabindex="-1" autofocus="">This request is no longer waiting for an answer.</p>"#
            ))
        #expect(page.text.contains(#"data-prompt-id="\#(waiting.id)""#), "the prompt still waiting is shown")
        #expect(!page.text.contains(#"data-prompt-id="\#(answered.id)""#) && !page.text.contains("no-prompts"))
        #expect(!page.text.contains("Nothing was changed"), "a GET changes nothing to begin with")
    }

    /// The page shows at most 50 prompts, the oldest; when more are pending it says so, so that
    /// none waits unseen until it expires.
    @Test func morePendingPromptsThanThePageShowsAreSaidToWait() throws {
        let app = try TestApp()
        var prompts: [Prompt] = []
        for index in 0..<17 {
            let bundle = "com.example.app\(index)"
            try app.registerApp(bundle)
            for service in ["camera", "microphone", "contacts"] {
                prompts.append(try app.prompt(service, "full", app: bundle))
                app.clock.advance(by: 1)  // ids order creation by the millisecond
            }
        }
        let created = prompts.map(\.id)
        #expect(created.count == 51)
        let browser = try ConsentBrowser(app)
        for target in ["/consent/", "/consent/prompts-fragment"] {
            let page = try browser.get(target).text
            let shown = page.matches(of: #/data-prompt-id="([^"]+)"/#).map { String($0.1) }
            #expect(shown == Array(created.prefix(50)), "\(target): the oldest 50, oldest first")
            #expect(page.contains(#"<p id="more-prompts">More requests are waiting for an answer."#), "\(target)")
        }
        _ = try app.decide(prompts[0], "deny")
        let all = try browser.get("/consent/").text
        #expect(all.matches(of: #/data-prompt-id="/#).count == 50 && !all.contains("more-prompts"), "all 50 fit")
    }

    /// An app's name is isolated wherever a page places it (the alert's title, the Settings
    /// entry, the history), and the directional controls it holds are dropped, so a name
    /// ending in RIGHT-TO-LEFT OVERRIDE cannot reverse the words after it.
    @Test func appNamesAreIsolatedFromTheWordsAroundThem() throws {
        let app = try TestApp()
        let registration = AppRegistration(name: "Maps\u{202E}", purposeStrings: TestApp.allPurposes)
        #expect(
            try app.put(registration, as: "com.example.rlo").status == 201)
        let prompt = try app.prompt("camera", "full", app: "com.example.rlo")
        _ = try app.grant("photos", "full", "allowFull", app: "com.example.rlo")
        for (language, title) in [
            ("en", "“\u{2068}Maps\u{2069}” Would Like to Access the Camera"),
            ("de", "„\u{2068}Maps\u{2069}“ möchte auf deine Kamera zugreifen"),
        ] {
            let browser = try ConsentBrowser(app, acceptLanguage: language)
            let alert = try Markup.alert(prompt.id, in: try browser.get("/consent/").text)
            let shown = Markup.text(after: #"<h2 class="alert-title" id="title-\#(prompt.id)">"#, closing: "h2", in: alert)
            #expect(shown.map { Array($0.unicodeScalars) } == Array(title.unicodeScalars), "\(language)")
            let settings = try browser.get("/consent/settings").text
            let form = try Markup.settingsForm(service: "photos", app: "com.example.rlo", in: settings)
            #expect(form.contains("<legend>\u{2068}Maps\u{2069}</legend>"), "\(language)")
            let history = try browser.get("/consent/history").text
            #expect(history.contains(#"<span class="detail" dir="auto">\#u{2068}Maps\#u{2069} · "#), "\(language)")
            for page in [alert, settings, history] {
                #expect(!page.unicodeScalars.contains("\u{202E}"), "no override reaches a page (\(language))")
            }
        }
    }

    /// Hostile names and purpose strings are text: their markup is escaped wherever shown.
    @Test func hostileAppNamesAndPurposeStringsAreEscaped() throws {
        let app = try TestApp()
        var purposes = TestApp.allPurposes
        let hostile = #"<script>alert("p")</script><img src=x onerror=alert(1)>"#
        purposes["NSCameraUsageDescription"] = hostile
        let registration = AppRegistration(name: #"<b onmouseover="x">Evil</b> & 'co'"#, purposeStrings: purposes)
        #expect(
            try app.put(registration, as: "com.evil.app").status == 201)
        let prompt = try app.prompt("camera", "full", app: "com.evil.app")
        _ = try app.grant("photos", "full", "allowFull", app: "com.evil.app")
        let browser = try ConsentBrowser(app)
        for target in [
            "/consent/", "/consent/prompts-fragment", "/consent/prompts/\(prompt.id)", "/consent/settings", "/consent/history",
        ] {
            let page = try browser.get(target).text
            #expect(!page.contains("<script>") && !page.contains("<img") && !page.contains("<b "), "\(target)")
            #expect(page.contains("&lt;b onmouseover=&quot;x&quot;&gt;Evil&lt;/b&gt; &amp; &#39;co&#39;"), "\(target)")
        }
        let alert = try Markup.alert(prompt.id, in: try browser.get("/consent/").text)
        #expect(alert.contains("&lt;script&gt;alert(&quot;p&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"))
        #expect(
            alert.contains(
                "“\u{2068}&lt;b onmouseover=&quot;x&quot;&gt;Evil&lt;/b&gt; &amp; &#39;co&#39;\u{2069}” Would Like to Access the Camera"
            ))
    }
}
