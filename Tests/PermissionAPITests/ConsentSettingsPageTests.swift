import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// Settings › Privacy (SPEC §10), in-process on either store: each option is the settings
/// change pages.md maps it to, made by the same call as `PUT .../authorizations/{service}`
/// (audited with the session as actor); the Location Services switch; restricted entries
/// shown disabled and refused when forged; another user's or an unknown entry not found.
@Suite struct ConsentSettingsPageTests {
    /// (service, option, expected status, expected level).
    static let mappings: [(String, String, Authorization.Status, String?)] = [
        ("location", "never", .denied, nil),
        ("location", "askNextTime", .notDetermined, nil),
        ("location", "whileUsing", .authorized, "whenInUse"),
        ("location", "always", .authorized, "always"),
        ("photos", "none", .denied, nil),
        ("photos", "addOnly", .authorized, "addOnly"),
        ("photos", "limited", .authorized, "limited"),
        ("photos", "full", .authorized, "full"),
        ("camera", "off", .denied, nil),
        ("camera", "on", .authorized, "full"),
        ("contacts", "off", .denied, nil),
        ("contacts", "on", .authorized, "full"),
        ("calendars", "on", .authorized, "full"),
    ]

    @Test func eachOptionIsTheSettingsChangeItNames() throws {
        let app = try TestApp()
        try app.registerApp()
        for service in ["location", "photos", "camera", "contacts", "calendars"] {
            #expect(try app.set(service, #"{"status":"denied"}"#).status == 200)  // a record: the entry is listed
        }
        let browser = try ConsentBrowser(app)
        let page = try browser.get("/consent/settings")
        #expect(page.status == 200)
        let options: [String: [String]] = [
            "location": ["never", "askNextTime", "whileUsing", "always"], "photos": ["none", "addOnly", "limited", "full"],
            "camera": ["off", "on"], "contacts": ["off", "on"], "calendars": ["off", "on"],
        ]
        let names = [
            "location": "Location Services", "photos": "Photos", "camera": "Camera", "contacts": "Contacts",
            "calendars": "Calendars",
        ]
        for (service, values) in options {
            #expect(page.text.contains(#"<section class="service" data-service="\#(service)">"#))
            let radios = try Markup.radios(service: service, app: "com.example.maps", in: page.text)
            #expect(radios.map(\.value) == values, "\(service)")
            #expect(radios.filter(\.checked).map(\.value) == [values[0]], "denied shows \(values[0])")
            let form = try Markup.settingsForm(service: service, app: "com.example.maps", in: page.text)
            #expect(
                form.contains(
                    #"<form class="app-setting" method="post" action="/consent/settings/\#(service)/com.example.maps" data-app="com.example.maps">"#
                ))
            // The entry and its button are named with the app (the visible legend) and the service
            // (the section's heading), the visible label first (WCAG 1.3.1, 2.4.6, 2.5.3).
            let name = names[service] ?? service
            #expect(
                form.contains(
                    #"<fieldset aria-label="\#u{2068}Maps\#u{2069}, \#(name)"><legend>\#u{2068}Maps\#u{2069}</legend>"#),
                "\(service)")
            #expect(
                form.contains(
                    #"<button type="submit" class="save" aria-label="Save \#(name) for \#u{2068}Maps\#u{2069}">Save</button>"#),
                "\(service)")
            for value in values {
                let id = "setting-\(service)-com.example.maps-\(value)"
                #expect(form.contains(#"id="\#(id)""#) && form.contains(#"<label for="\#(id)">"#), "\(id) is labelled")
            }
        }
        for (service, value, status, level) in Self.mappings {
            let before = try app.lastSeq()
            let response = try browser.post("/consent/settings/\(service)/com.example.maps", [("value", value)])
            #expect(
                response.status == 303 && response.headers["Location"] == "/consent/settings?done=saved", "\(service) \(value)")
            let authorization = try app.authorization(service)
            #expect(authorization.status == status && authorization.level == level, "\(service) \(value)")
            if status != .notDetermined || value == "askNextTime" { #expect(authorization.reason == .userSet) }
            let entries = try app.audit("after=\(before)")
            if let entry = entries.first {
                #expect(entry.action == "authorization.set" && entry.actor.role == "user" && entry.user == "u42")
            }
            let shown = try Markup.radios(
                service: service, app: "com.example.maps", in: try browser.get("/consent/settings").text)
            #expect(shown.filter(\.checked).map(\.value) == [value], "\(service) \(value) is shown checked")
        }
        let saved = try browser.get("/consent/settings?done=saved").text
        #expect(saved.contains(#"<p id="flash" role="status" tabindex="-1" autofocus="">Your setting was saved.</p>"#))
        let unknown = try browser.get("/consent/settings?done=%3Cscript%3E").text
        #expect(!unknown.contains("flash") && !unknown.contains("&lt;script"), "an unknown flash shows nothing")
    }

    /// The same change as the API: one entry, the same `from`, `to` and `reason`.
    @Test func aSettingIsTheSameChangeAsTheAPIs() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("location", "always", "allowWhileUsing", user: "u42")
        _ = try app.grant("location", "always", "allowWhileUsing", user: "u43")
        let browser = try ConsentBrowser(app)
        let before = try app.lastSeq()
        #expect(try browser.post("/consent/settings/location/com.example.maps", [("value", "always")]).status == 303)
        try app.set("location", #"{"status":"authorized","level":"always"}"#, user: "u43")
        let entries = try app.audit("after=\(before)&action=authorization.set")
        #expect(entries.count == 2)
        #expect(entries[0].from == entries[1].from && entries[0].to == entries[1].to && entries[0].reason == entries[1].reason)
        #expect(entries[0].to?.provisional == false, "an explicit choice ends the provisional flow")
        #expect(entries[0].actor.role == "user" && entries[1].actor.role == "admin")
    }

    /// Saving the option the entry shows as its state writes nothing: a provisional Always
    /// (shown While Using), an Allow Once (shown Ask Next Time) and an expiring grant (shown
    /// On) stay as they are, with the purpose the user was shown.
    @Test func savingTheOptionShownChangesNothing() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("location", "always", "allowWhileUsing", user: "u42")
        _ = try app.grant("photos", "full", "allowFull", user: "u42")
        let until = Timestamp.format(app.clock.now.addingTimeInterval(7200))
        try app.set("camera", #"{"status":"authorized","level":"full","until":"\#(until)"}"#)
        let browser = try ConsentBrowser(app)  // its session's entries come first
        let before = try app.lastSeq()
        for (service, value) in [("location", "whileUsing"), ("photos", "full"), ("camera", "on")] {
            let saved = try browser.post("/consent/settings/\(service)/com.example.maps", [("value", value)])
            #expect(saved.status == 303 && saved.headers["Location"] == "/consent/settings?done=saved", "\(service)")
        }
        #expect(try app.lastSeq() == before, "nothing written")
        let location = try app.authorization("location")
        #expect(location.provisional && location.level == "always" && location.purpose != nil)
        #expect(try app.authorization("camera").expiresAt != nil)
        // Another option is a change.
        #expect(try browser.post("/consent/settings/location/com.example.maps", [("value", "whileUsing")]).status == 303)
        #expect(try app.lastSeq() == before, "still the state shown")
        #expect(try browser.post("/consent/settings/location/com.example.maps", [("value", "always")]).status == 303)
        #expect(try app.lastSeq() == before + 1)
        #expect(try !app.authorization("location").provisional)
    }

    /// An entry's and its Save button's accessible names are in the page's language, the
    /// visible label first.
    @Test func theEntriesAccessibleNamesAreInThePagesLanguage() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("location", "whenInUse", "allowWhileUsing")
        let page = try ConsentBrowser(app, acceptLanguage: "de").get("/consent/settings").text
        let form = try Markup.settingsForm(service: "location", app: "com.example.maps", in: page)
        #expect(form.contains(#"<fieldset aria-label="\#u{2068}Maps\#u{2069}, Ortungsdienste">"#))
        #expect(form.contains(#"aria-label="Sichern: Ortungsdienste für \#u{2068}Maps\#u{2069}">Sichern</button>"#))
    }

    @Test func theLocationServicesSwitch() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("location", "whenInUse", "allowWhileUsing")
        let browser = try ConsentBrowser(app, acceptLanguage: "de")
        let on = try browser.get("/consent/settings").text
        #expect(on.contains(#"<form id="location-services" method="post" action="/consent/settings/location-services">"#))
        #expect(
            on.contains(
                #"<button type="submit" name="enabled" value="false" aria-pressed="true"><span class="switch-label">Ortungsdienste</span><span class="switch-state">Ein</span>"#
            ))
        let off = try browser.submit("/consent/settings/location-services", [("enabled", "false")]).text
        #expect(off.contains(#"name="enabled" value="true" aria-pressed="false""#))
        #expect(off.contains(#"<p id="flash" role="status" tabindex="-1" autofocus="">Ortungsdienste sind ausgeschaltet.</p>"#))
        #expect(try app.send(.get, "/v1/users/u42/settings").decode(UserSettings.self).locationServicesEnabled == false)
        let authorization = try app.authorization("location")
        #expect(authorization.status == .denied && authorization.reason == .servicesDisabled)
        let entry = try #require(try app.audit().last)
        #expect(
            entry.action == "settings.changed" && entry.actor.role == "user"
                && entry.detail?["locationServicesEnabled"] == "false")
        let seq = try app.lastSeq()
        #expect(try browser.post("/consent/settings/location-services", [("enabled", "maybe")]).status == 400)
        #expect(try app.lastSeq() == seq)
        _ = try browser.submit("/consent/settings/location-services", [("enabled", "true")])
        #expect(try app.authorization("location").status == .authorized, "the stored choice is back")
    }

    @Test func aRestrictedEntryIsShownDisabledAndAForgedChangeIsRefused() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("camera", "full", "allow")
        try app.policy("r", #"{"service":"camera","app":"com.example.maps","user":"u42","effect":"restrict"}"#)
        let browser = try ConsentBrowser(app)
        let page = try browser.get("/consent/settings").text
        let form = try Markup.settingsForm(service: "camera", app: "com.example.maps", in: page)
        #expect(form.contains(#"data-restricted="true""#))
        // The note saying why is tied to the entry, for a screen reader.
        #expect(
            form.contains(#"Camera" aria-describedby="managed-camera-com.example.maps">"#), "\(form)")
        #expect(form.contains(#"<p class="restricted" id="managed-camera-com.example.maps">"#))
        let radios = try Markup.radios(service: "camera", app: "com.example.maps", in: page)
        #expect(radios.count == 2 && radios.allSatisfy(\.disabled) && !radios.contains(where: \.checked))
        let seq = try app.lastSeq()
        for value in ["off", "on"] {
            let response = try browser.post("/consent/settings/camera/com.example.maps", [("value", value)])
            #expect(response.status == 409, "\(value)")
            #expect(
                response.text.contains(
                    #"<p id="flash" class="error" role="alert" tabindex="-1" autofocus="">This setting is restricted"#))
        }
        #expect(try app.lastSeq() == seq, "nothing was written")
        #expect(try app.authorization("camera").status == .restricted)
    }

    /// With Location Services off, each location entry shows the choice kept for when they are
    /// on again (iOS shows it beside the switch), not the "Never" the switch makes of it, and
    /// saving the entry as shown keeps it.
    @Test func withLocationServicesOffTheKeptChoiceIsShown() throws {
        let app = try TestApp()
        try app.registerApp()
        _ = try app.grant("location", "whenInUse", "allowWhileUsing")
        let browser = try ConsentBrowser(app)
        _ = try browser.submit("/consent/settings/location-services", [("enabled", "false")])
        #expect(try app.authorization("location").reason == .servicesDisabled)
        let page = try browser.get("/consent/settings").text
        let radios = try Markup.radios(service: "location", app: "com.example.maps", in: page)
        #expect(radios.filter(\.checked).map(\.value) == ["whileUsing"])
        #expect(try browser.post("/consent/settings/location/com.example.maps", [("value", "whileUsing")]).status == 303)
        _ = try browser.submit("/consent/settings/location-services", [("enabled", "true")])
        let back = try app.authorization("location")
        #expect(back.status == .authorized && back.level == "whenInUse", "the kept choice is back")
    }

    /// An entry an operator's allow policy decides is managed as a restricted one is: shown
    /// with its controls disabled and a sentence saying so; a forged change is refused (409),
    /// never answered "saved" while the entry stays on.
    @Test func anEntryAnAllowPolicyDecidesIsShownManaged() throws {
        let app = try TestApp()
        try app.registerApp()
        #expect(try app.set("camera", #"{"status":"denied"}"#).status == 200)
        try app.policy("a", #"{"service":"camera","app":"com.example.maps","effect":"allow","level":"full"}"#)
        #expect(try app.authorization("camera").status == .authorized)
        let browser = try ConsentBrowser(app)
        let page = try browser.get("/consent/settings").text
        let form = try Markup.settingsForm(service: "camera", app: "com.example.maps", in: page)
        #expect(form.contains(#"data-restricted="true""#))
        #expect(
            form.contains(
                #"<p class="restricted" id="managed-camera-com.example.maps">Allowed for you: this setting is managed for you"#))
        let radios = try Markup.radios(service: "camera", app: "com.example.maps", in: page)
        #expect(radios.allSatisfy(\.disabled) && radios.filter(\.checked).map(\.value) == ["on"])
        let seq = try app.lastSeq()
        let response = try browser.post("/consent/settings/camera/com.example.maps", [("value", "off")])
        #expect(response.status == 409 && !response.text.contains("was saved"))
        #expect(try app.lastSeq() == seq, "nothing was written")
    }

    /// As on iOS, Always is offered only to an app with both location purpose strings; a forged
    /// Always for an app without them is refused (400), nothing written.
    @Test func alwaysIsOfferedOnlyToAnAppWithItsPurposeStrings() throws {
        let app = try TestApp()
        var purposes = TestApp.allPurposes
        purposes["NSLocationAlwaysAndWhenInUseUsageDescription"] = nil
        try app.registerApp("com.example.maps", purposes)
        try app.registerApp("com.example.hike")
        _ = try app.grant("location", "whenInUse", "allowWhileUsing")
        _ = try app.grant("location", "whenInUse", "allowWhileUsing", app: "com.example.hike")
        let browser = try ConsentBrowser(app)
        let page = try browser.get("/consent/settings").text
        #expect(
            try Markup.radios(service: "location", app: "com.example.maps", in: page).map(\.value)
                == ["never", "askNextTime", "whileUsing"])
        #expect(
            try Markup.radios(service: "location", app: "com.example.hike", in: page).map(\.value)
                == ["never", "askNextTime", "whileUsing", "always"])
        let seq = try app.lastSeq()
        #expect(try browser.post("/consent/settings/location/com.example.maps", [("value", "always")]).status == 400)
        #expect(try app.lastSeq() == seq && app.authorization("location").level == "whenInUse")
        #expect(try browser.post("/consent/settings/location/com.example.hike", [("value", "always")]).status == 303)
    }

    /// On grants the strongest level the app has the purpose strings of, not the service's
    /// strongest: calendars On for an app with only the write-only key is write-only access.
    /// An app with none of the service's keys is offered no On at all.
    @Test func onGrantsOnlyALevelTheAppHasThePurposeStringsOf() throws {
        let app = try TestApp()
        try app.registerApp("com.example.maps", ["NSCalendarsWriteOnlyAccessUsageDescription": "Adds your trips."])
        try app.registerApp("com.example.hike", ["NSCameraUsageDescription": "Scans trail signs."])
        try app.set("calendars", #"{"status":"denied"}"#)
        try app.set("calendars", #"{"status":"denied"}"#, app: "com.example.hike")
        let browser = try ConsentBrowser(app)
        let page = try browser.get("/consent/settings").text
        #expect(try Markup.radios(service: "calendars", app: "com.example.maps", in: page).map(\.value) == ["off", "on"])
        #expect(try Markup.radios(service: "calendars", app: "com.example.hike", in: page).map(\.value) == ["off"])
        #expect(try browser.post("/consent/settings/calendars/com.example.maps", [("value", "on")]).status == 303)
        let calendars = try app.authorization("calendars")
        #expect(calendars.status == .authorized && calendars.level == "writeOnly", "\(calendars)")
        let seq = try app.lastSeq()
        #expect(try browser.post("/consent/settings/calendars/com.example.hike", [("value", "on")]).status == 400)
        #expect(try app.lastSeq() == seq && app.authorization("calendars", app: "com.example.hike").status == .denied)
    }

    @Test func otherEntriesAndFormsWithoutTheTokenChangeNothing() throws {
        let app = try TestApp()
        try app.registerApp()
        try app.registerApp("com.example.other")
        _ = try app.grant("camera", "full", "allow", user: "u43")
        _ = try app.grant("camera", "full", "allow", user: "u42")
        let browser = try ConsentBrowser(app)
        let seq = try app.lastSeq()
        let cases: [(String, String, Int)] = [
            ("/consent/settings/camera/com.example.other", "off", 404),  // no record of u42: not an entry
            ("/consent/settings/nosuch/com.example.maps", "off", 404),
            ("/consent/settings/camera/not%20an%20app", "off", 404),
            ("/consent/settings/camera/com.example.maps", "never", 400),  // not a camera option
            ("/consent/settings/camera/com.example.maps", "", 400),
        ]
        for (target, value, status) in cases {
            #expect(try browser.post(target, [("value", value)]).status == status, "\(target) \(value)")
        }
        let form = ("Content-Type", "application/x-www-form-urlencoded")
        for target in ["/consent/settings/camera/com.example.maps", "/consent/settings/location-services"] {
            let response = try app.send(
                .post, target, body: Array("value=off&enabled=false".utf8), headers: browser.headers + [form])
            #expect(response.status == 403, "\(target): no CSRF token")
        }
        #expect(try app.lastSeq() == seq, "nothing was written")
        #expect(try app.authorization("camera", user: "u42").status == .authorized)
        #expect(try app.authorization("camera", user: "u43").status == .authorized)
        let page = try browser.get("/consent/settings").text
        #expect(page.contains(#"data-app="com.example.maps""#) && !page.contains("com.example.other"), "only u42's entries")
    }
}
