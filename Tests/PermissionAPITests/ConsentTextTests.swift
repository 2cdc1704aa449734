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
            #expect(ConsentText.alertTitle(app: "Maps", service: service, kind: .request, .en) == english)
            #expect(ConsentText.alertTitle(app: "Maps", service: service, kind: .request, .de) == german)
        }
        #expect(Set(Self.titles.map(\.0)).isSuperset(of: Catalogue.builtins.map(\.id)), "every built-in service")
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
