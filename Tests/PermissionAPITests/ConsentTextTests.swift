import HTTPCore
import PermissionDomain
import Testing

@testable import PermissionAPI

/// The consent pages' words (pure): the iOS alert titles of every built-in service and a
/// custom one in both languages, every text present in both, and the page language chosen
/// from Accept-Language.
@Suite struct ConsentTextTests {
    static let titles: [(ServiceID, String, String)] = [
        (.location, "“Maps” Would Like to Use Your Location", "„Maps“ möchte deinen Standort verwenden"),
        (.photos, "“Maps” Would Like to Access Your Photos", "„Maps“ möchte auf deine Fotos zugreifen"),
        (.camera, "“Maps” Would Like to Access the Camera", "„Maps“ möchte auf deine Kamera zugreifen"),
        (.microphone, "“Maps” Would Like to Access the Microphone", "„Maps“ möchte auf dein Mikrofon zugreifen"),
        (.contacts, "“Maps” Would Like to Access Your Contacts", "„Maps“ möchte auf deine Kontakte zugreifen"),
        (.calendars, "“Maps” Would Like to Access Your Calendar", "„Maps“ möchte auf deinen Kalender zugreifen"),
        (.reminders, "“Maps” Would Like to Access Your Reminders", "„Maps“ möchte auf deine Erinnerungen zugreifen"),
        (.bluetooth, "“Maps” Would Like to Use Bluetooth", "„Maps“ möchte Bluetooth verwenden"),
        (
            .motion, "“Maps” Would Like to Access Your Motion & Fitness Activity",
            "„Maps“ möchte auf deine Bewegungs- & Fitnessdaten zugreifen"
        ),
        (.speechRecognition, "“Maps” Would Like to Access Speech Recognition", "„Maps“ möchte auf die Spracherkennung zugreifen"),
        (.mediaLibrary, "“Maps” Would Like to Access Your Media Library", "„Maps“ möchte auf deine Mediathek zugreifen"),
        (.homeKit, "“Maps” Would Like to Access Your Home Data", "„Maps“ möchte auf deine Home-Daten zugreifen"),
        (
            .localNetwork, "“Maps” Would Like to Find and Connect to Devices on Your Local Network",
            "„Maps“ möchte Geräte in deinem lokalen Netzwerk finden und sich mit ihnen verbinden"
        ),
        (
            .tracking, "Allow “Maps” to track your activity across other companies’ apps and websites?",
            "Darf „Maps“ deine Aktivitäten in Apps und auf Websites anderer Unternehmen erfassen?"
        ),
        (ServiceID(trusted: "heartRate"), "“Maps” Would Like to Access heartRate", "„Maps“ möchte auf heartRate zugreifen"),
    ]

    @Test func everyServiceHasItsIOSTitleInBothLanguages() {
        for (service, english, german) in Self.titles {
            #expect(
                ConsentText.alertTitle(app: "Maps", service: service, kind: .request, .en)
                    == Markup.isolating("Maps", in: english))
            #expect(
                ConsentText.alertTitle(app: "Maps", service: service, kind: .request, .de) == Markup.isolating("Maps", in: german)
            )
        }
        #expect(Set(Self.titles.map(\.0)).isSuperset(of: Catalogue.builtins.map(\.id)), "every built-in service")
    }

    /// A request for photos' add-only or calendars' write-only access says so in its title (it
    /// would otherwise read as a request for the whole library); the full levels, and levels
    /// of other services, keep the service's title.
    @Test func narrowerLevelsSayWhatTheyAllow() {
        let narrower: [(ServiceID, Level, String, String)] = [
            (.photos, .addOnly, "“Maps” Would Like to Add to Your Photos", "„Maps“ möchte zu deinen Fotos hinzufügen"),
            (
                .calendars, .writeOnly, "“Maps” Would Like to Add Events to Your Calendar",
                "„Maps“ möchte Ereignisse zu deinem Kalender hinzufügen"
            ),
        ]
        for (service, level, english, german) in narrower {
            #expect(
                ConsentText.alertTitle(app: "Maps", service: service, kind: .request, level: level, .en)
                    == Markup.isolating("Maps", in: english))
            #expect(
                ConsentText.alertTitle(app: "Maps", service: service, kind: .request, level: level, .de)
                    == Markup.isolating("Maps", in: german))
        }
        let unchanged: [(ServiceID, Level)] = [(.photos, .limited), (.photos, .full), (.calendars, .full), (.contacts, .limited)]
        for (service, level) in unchanged {
            for language in ConsentLanguage.allCases {
                #expect(
                    ConsentText.alertTitle(app: "Maps", service: service, kind: .request, level: level, language)
                        == ConsentText.alertTitle(app: "Maps", service: service, kind: .request, language))
            }
        }
    }

    /// Whatever an app's name holds (an override or embedding left open, an isolate closed
    /// that it never opened, more isolates than UAX #9 nests, right-to-left letters), the title
    /// places it in one isolate of its own with no explicit directional formatting character
    /// left inside, so the title's own words keep their order and direction (UAX #9 X5a-X6a:
    /// nothing inside an isolate reaches the text around it), in every kind of alert and both
    /// languages.
    @Test func anAppsNameCannotReorderTheTitlesWords() {
        let names = [
            "Maps\u{202E}", "\u{202E}Maps", "Maps\u{202B}", "Maps\u{202D}x", "Maps\u{2069}\u{202E}", "\u{2067}Maps",
            "Maps\u{2066}\u{2069}\u{2069}\u{202E}", String(repeating: "\u{2068}", count: 200) + "Maps\u{202E}",
            "\u{5DE}\u{5E4}\u{5D5}\u{5EA}\u{200F}", "",
        ]
        let kinds: [(ServiceID, PromptKind)] = [
            (.camera, .request), (.tracking, .request), (.location, .upgrade), (.location, .locationAlert),
            (.location, .locationButton),
        ]
        let formatting: ClosedRange<UInt32> = 0x202A...0x202E
        let isolates: ClosedRange<UInt32> = 0x2066...0x2069
        for name in names {
            let kept = name.unicodeScalars.filter { !formatting.contains($0.value) && !isolates.contains($0.value) }
            for (service, kind) in kinds {
                for language in ConsentLanguage.allCases {
                    let title = ConsentText.alertTitle(app: name, service: service, kind: kind, backgroundUses: 2, language)
                    let plain = ConsentText.alertTitle(app: "Maps", service: service, kind: kind, backgroundUses: 2, language)
                    let words = plain.replacingOccurrences(of: "\u{2068}", with: "").replacingOccurrences(
                        of: "\u{2069}", with: ""
                    )
                    .components(separatedBy: "Maps")
                    #expect(words.count == 2, "the name appears once in \(plain.debugDescription)")
                    let expected = words[0] + "\u{2068}" + String(String.UnicodeScalarView(kept)) + "\u{2069}" + words[1]
                    #expect(
                        Array(title.unicodeScalars) == Array(expected.unicodeScalars),
                        "\(name.debugDescription) in \(service) \(kind) \(language): \(title.debugDescription)")
                }
            }
        }
    }

    @Test func everyTextIsWrittenInEveryLanguage() {
        for key in ConsentText.Key.allCases {
            let texts = ConsentLanguage.allCases.map { ConsentText.text(key, $0) }
            #expect(texts.allSatisfy { !$0.isEmpty }, "\(key)")
        }
        for option in ConsentSettingOption.allCases {
            #expect(ConsentText.option(option, .en) != ConsentText.option(option, .de), "\(option)")
        }
        #expect(ConsentText.choice(.deny, service: .tracking, .en) == "Ask App Not to Track")
        #expect(ConsentText.choice(.deny, service: .tracking, .de) == "App bitten, kein Tracking durchzuführen")
    }

    /// A state in words reads as Settings shows it: a provisional Always is While Using the App.
    @Test func aProvisionalAlwaysReadsAsWhileUsing() {
        let cases: [(AuthorizationSnapshot, String, String)] = [
            (
                AuthorizationSnapshot(status: .authorized, level: .always, provisional: true),
                "Allowed: While Using the App", "Erlaubt: Beim Verwenden der App"
            ),
            (AuthorizationSnapshot(status: .authorized, level: .always), "Allowed: Always", "Erlaubt: Immer"),
            (
                AuthorizationSnapshot(status: .authorized, level: .whenInUse, once: true),
                "Allowed: While Using the App (once)", "Erlaubt: Beim Verwenden der App (einmal)"
            ),
            (AuthorizationSnapshot(status: .denied), "Not allowed", "Nicht erlaubt"),
        ]
        for (snapshot, english, german) in cases {
            #expect(ConsentText.state(snapshot, .en) == english)
            #expect(ConsentText.state(snapshot, .de) == german)
        }
    }

    @Test func thePageLanguageComesFromAcceptLanguage() {
        let cases: [(String?, ConsentLanguage)] = [
            (nil, .en), ("de", .de), ("de-CH", .de), ("DE-at, en;q=0.8", .de), ("en;q=0.5, de;q=0.9", .de),
            ("fr, de;q=0.1", .de), ("fr", .en), ("de;q=0", .en), ("*", .en), ("en-GB, de", .en), ("garbage;;;", .en),
        ]
        for (field, expected) in cases {
            var headers = HTTPHeaders()
            if let field { headers.add(name: "Accept-Language", value: field) }
            #expect(ConsentLanguage.of(headers) == expected, "\(field ?? "none")")
        }
    }
}
