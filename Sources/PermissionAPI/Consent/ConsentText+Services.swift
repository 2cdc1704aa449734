import PermissionDomain

/// The texts with a value in them: the iOS alert titles per service (the app's name in
/// typographic quotes, as iOS writes them in each language), the iOS button labels, service
/// and level names, settings options and the words of the history. An app's name is placed
/// in them ``isolated(_:)`` only.
extension ConsentText {
    /// An app's name (text of the app's registration, anything in it) as a Unicode isolate, to
    /// be placed inside a sentence: between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE
    /// (U+2068, U+2069; UAX #9 §2.7, W3C "Inline markup and bidirectional text in HTML"), so
    /// that it takes its own direction and nothing in it reorders the words around it (a name
    /// ending in RIGHT-TO-LEFT OVERRIDE would otherwise reverse "Would Like to Access the
    /// Camera"). Plain text, so it works wherever text goes (`<title>`, an attribute, content).
    /// The explicit directional formatting characters in `name` (embeddings, overrides,
    /// isolates: U+202A-U+202E, U+2066-U+2069) are dropped first: an unmatched PDI in it would
    /// end the isolate early, and more than 125 levels of them would overflow it (UAX #9 BD16,
    /// X5a-X6a).
    static func isolated(_ name: String) -> String {
        var text = "\u{2068}"
        text.unicodeScalars.append(contentsOf: name.unicodeScalars.filter { !isExplicitFormatting($0) })
        return text + "\u{2069}"
    }

    /// Whether `scalar` is an explicit directional embedding, override or isolate (UAX #9 §2).
    static func isExplicitFormatting(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// The alert's title: “Maps” Would Like to Use Your Location / „Maps“ möchte deinen
    /// Standort verwenden; tracking asks as iOS's App Tracking Transparency does, the upgrade
    /// prompt as iOS's "also use your location" alert, a location alert as iOS 13's reminder
    /// with the count of background uses in the past 3 days. A request for one of the narrower
    /// levels says what it allows, as iOS's own alerts do: photos' `addOnly` ("Would Like to
    /// Add to Your Photos", `NSPhotoLibraryAddUsageDescription`), calendars' `writeOnly`
    /// ("Would Like to Add Events to Your Calendar", `NSCalendarsWriteOnlyAccessUsageDescription`);
    /// otherwise it would read as a request for the whole library.
    static func alertTitle(
        app: String, service: ServiceID, kind: PromptKind, level: Level? = nil, backgroundUses: Int? = nil,
        _ language: ConsentLanguage
    ) -> String {
        let app = isolated(app)
        if kind == .locationAlert {
            let uses = backgroundUses ?? 0
            switch language {
            case .en:
                return "“\(app)” has been using your location in the background \(uses) \(uses == 1 ? "time" : "times") "
                    + "in the past 3 days. Do you want to continue to allow background location use?"
            case .de:
                return "„\(app)“ hat deinen Standort in den letzten 3 Tagen \(uses)-mal im Hintergrund verwendet. "
                    + "Möchtest du die Standortverwendung im Hintergrund weiterhin erlauben?"
            }
        }
        if kind == .locationButton {
            switch language {
            case .en: return "Allow “\(app)” to use your current location when you tap its location button?"
            case .de: return "Darf „\(app)“ deinen aktuellen Standort verwenden, wenn du auf seine Standorttaste tippst?"
            }
        }
        if kind == .upgrade {
            switch language {
            case .en: return "Allow “\(app)” to also use your location even when you are not using the app?"
            case .de: return "Darf „\(app)“ deinen Standort auch verwenden, wenn du die App nicht verwendest?"
            }
        }
        if service == .tracking {
            switch language {
            case .en: return "Allow “\(app)” to track your activity across other companies’ apps and websites?"
            case .de: return "Darf „\(app)“ deine Aktivitäten in Apps und auf Websites anderer Unternehmen erfassen?"
            }
        }
        let (en, de) = wouldLikeTo(service, level: level)
        switch language {
        case .en: return "“\(app)” Would Like to \(en)"
        case .de: return "„\(app)“ möchte \(de)"
        }
    }

    /// What an app asks to do with `service` at `level`, after "Would Like to" / "möchte".
    private static func wouldLikeTo(_ service: ServiceID, level: Level?) -> (en: String, de: String) {
        switch (service, level) {
        case (.photos, .addOnly?): return ("Add to Your Photos", "zu deinen Fotos hinzufügen")
        case (.calendars, .writeOnly?): return ("Add Events to Your Calendar", "Ereignisse zu deinem Kalender hinzufügen")
        default: break
        }
        switch service {
        case .location: return ("Use Your Location", "deinen Standort verwenden")
        case .photos: return ("Access Your Photos", "auf deine Fotos zugreifen")
        case .camera: return ("Access the Camera", "auf deine Kamera zugreifen")
        case .microphone: return ("Access the Microphone", "auf dein Mikrofon zugreifen")
        case .contacts: return ("Access Your Contacts", "auf deine Kontakte zugreifen")
        case .calendars: return ("Access Your Calendar", "auf deinen Kalender zugreifen")
        case .reminders: return ("Access Your Reminders", "auf deine Erinnerungen zugreifen")
        case .bluetooth: return ("Use Bluetooth", "Bluetooth verwenden")
        case .motion: return ("Access Your Motion & Fitness Activity", "auf deine Bewegungs- & Fitnessdaten zugreifen")
        case .speechRecognition: return ("Access Speech Recognition", "auf die Spracherkennung zugreifen")
        case .mediaLibrary: return ("Access Your Media Library", "auf deine Mediathek zugreifen")
        case .homeKit: return ("Access Your Home Data", "auf deine Home-Daten zugreifen")
        case .localNetwork:
            return (
                "Find and Connect to Devices on Your Local Network",
                "Geräte in deinem lokalen Netzwerk finden und sich mit ihnen verbinden"
            )
        case .tracking: return ("Track Your Activity", "deine Aktivitäten erfassen")
        default: return ("Access \(service.rawValue)", "auf \(service.rawValue) zugreifen")
        }
    }

    /// A button's label: the iOS wording of `choice` (tracking's deny is "Ask App Not to Track",
    /// contacts' selection "Select Contacts…").
    static func choice(_ choice: Choice, service: ServiceID, _ language: ConsentLanguage) -> String {
        let (en, de): (String, String)
        switch choice {
        case .allowOnce: (en, de) = ("Allow Once", "Einmal erlauben")
        case .allowWhileUsing: (en, de) = ("Allow While Using App", "Beim Verwenden der App erlauben")
        case .deny where service == .tracking: (en, de) = ("Ask App Not to Track", "App bitten, kein Tracking durchzuführen")
        case .deny: (en, de) = ("Don't Allow", "Nicht erlauben")
        case .keepWhileUsing: (en, de) = ("Keep Only While Using", "Nur beim Verwenden beibehalten")
        case .changeToAlways: (en, de) = ("Change to Always Allow", "Zu „Immer erlauben“ ändern")
        case .selectItems where service == .contacts: (en, de) = ("Select Contacts…", "Kontakte auswählen …")
        case .selectItems: (en, de) = ("Select Photos…", "Fotos auswählen …")
        case .allowFull: (en, de) = ("Allow Full Access", "Vollzugriff erlauben")
        case .allow: (en, de) = ("Allow", "Erlauben")
        case .keepAlways: (en, de) = ("Keep Always", "„Immer“ beibehalten")
        case .changeToWhileUsing: (en, de) = ("Change to Only While Using", "Zu „Beim Verwenden der App“ ändern")
        }
        return language == .en ? en : de
    }

    /// What the location button's alert explains below the purpose string (SPEC §11): what
    /// allowing it once means for every later tap.
    static func locationButtonNote(app: String, _ language: ConsentLanguage) -> String {
        let app = isolated(app)
        switch language {
        case .en:
            return "If you allow it, each later tap of the button shares your location with “\(app)” once, "
                + "without asking again, until the app is reset or reinstalled."
        case .de:
            return "Wenn du es erlaubst, teilt jedes spätere Tippen auf die Taste deinen Standort einmal mit „\(app)“, "
                + "ohne erneut zu fragen, bis die App zurückgesetzt oder neu installiert wird."
        }
    }

    /// The name of `service` in Settings › Privacy; a custom service's id.
    static func serviceName(_ service: ServiceID, _ language: ConsentLanguage) -> String {
        let (en, de): (String, String)
        switch service {
        case .location: (en, de) = ("Location Services", "Ortungsdienste")
        case .photos: (en, de) = ("Photos", "Fotos")
        case .camera: (en, de) = ("Camera", "Kamera")
        case .microphone: (en, de) = ("Microphone", "Mikrofon")
        case .contacts: (en, de) = ("Contacts", "Kontakte")
        case .calendars: (en, de) = ("Calendars", "Kalender")
        case .reminders: (en, de) = ("Reminders", "Erinnerungen")
        case .bluetooth: (en, de) = ("Bluetooth", "Bluetooth")
        case .motion: (en, de) = ("Motion & Fitness", "Bewegung & Fitness")
        case .speechRecognition: (en, de) = ("Speech Recognition", "Spracherkennung")
        case .mediaLibrary: (en, de) = ("Media & Apple Music", "Medien & Apple Music")
        case .homeKit: (en, de) = ("HomeKit", "HomeKit")
        case .localNetwork: (en, de) = ("Local Network", "Lokales Netzwerk")
        case .tracking: (en, de) = ("Tracking", "Tracking")
        default: (en, de) = (service.rawValue, service.rawValue)
        }
        return language == .en ? en : de
    }

    /// The label of a settings option.
    static func option(_ option: ConsentSettingOption, _ language: ConsentLanguage) -> String {
        let (en, de): (String, String)
        switch option {
        case .never: (en, de) = ("Never", "Nie")
        case .askNextTime: (en, de) = ("Ask Next Time", "Nächstes Mal fragen")
        case .whileUsing: (en, de) = ("While Using the App", "Beim Verwenden der App")
        case .always: (en, de) = ("Always", "Immer")
        case .noAccess: (en, de) = ("None", "Keine")
        case .addOnly: (en, de) = ("Add Photos Only", "Nur Fotos hinzufügen")
        case .limited: (en, de) = ("Limited Access", "Eingeschränkter Zugriff")
        case .full: (en, de) = ("Full Access", "Voller Zugriff")
        case .off: (en, de) = ("Off", "Aus")
        case .on: (en, de) = ("On", "Ein")
        }
        return language == .en ? en : de
    }

    /// The accessible name of an app's entry in Settings (its `fieldset`): the app's name, which
    /// the entry shows (WCAG 2.5.3: the visible label first), then the service, whose heading
    /// is outside the entry (WCAG 1.3.1, 2.4.6): "Maps, Location Services".
    static func settingEntry(app: String, service: ServiceID, _ language: ConsentLanguage) -> String {
        "\(isolated(app)), \(serviceName(service, language))"
    }

    /// The accessible name of an entry's Save button: its label first, then what it saves:
    /// "Save Location Services for Maps", "Sichern: Ortungsdienste für Maps".
    static func saveSetting(app: String, service: ServiceID, _ language: ConsentLanguage) -> String {
        let service = serviceName(service, language)
        switch language {
        case .en: return "\(text(.save, language)) \(service) for \(isolated(app))"
        case .de: return "\(text(.save, language)): \(service) für \(isolated(app))"
        }
    }

    /// Whose choices the pages show.
    static func choicesOf(_ user: String, _ language: ConsentLanguage) -> String {
        language == .en ? "Choices of \(user)" : "Auswahl von \(user)"
    }

    /// An authorization state in words: "Allowed: While Using the App", "Not allowed". As in
    /// Settings (``ConsentSettingOption/current(_:service:)``) and on iOS, a provisional Always
    /// (Allow While Using App pressed on an Always request, not confirmed by the upgrade prompt)
    /// reads as While Using the App.
    static func state(_ snapshot: AuthorizationSnapshot, _ language: ConsentLanguage) -> String {
        let en = language == .en
        switch snapshot.status {
        case .notDetermined: return en ? "Not decided" : "Nicht festgelegt"
        case .denied: return en ? "Not allowed" : "Nicht erlaubt"
        case .restricted: return en ? "Restricted" : "Eingeschränkt"
        case .authorized:
            var words = en ? "Allowed" : "Erlaubt"
            if let level = snapshot.level {
                words += ": " + levelName(level == .always && snapshot.provisional ? .whenInUse : level, language)
            }
            if snapshot.once { words += en ? " (once)" : " (einmal)" }
            return words
        }
    }

    /// A level's name as Settings shows it.
    static func levelName(_ level: Level, _ language: ConsentLanguage) -> String {
        let en = language == .en
        switch level {
        case .whenInUse: return option(.whileUsing, language)
        case .always: return option(.always, language)
        case .addOnly: return option(.addOnly, language)
        case .limited: return option(.limited, language)
        case .full: return option(.full, language)
        case .writeOnly: return en ? "Add Events Only" : "Nur Ereignisse hinzufügen"
        default: return level.rawValue
        }
    }

    /// What an audit entry did, in words.
    static func action(_ entry: AuditEntry, _ language: ConsentLanguage) -> String {
        let en = language == .en
        switch entry.action {
        case .promptCreated where entry.detail["kind"] == PromptKind.locationAlert.rawValue:
            return en
                ? "Asked whether to keep allowing background location use"
                : "Hat gefragt, ob die Standortverwendung im Hintergrund erlaubt bleiben soll"
        case .promptCreated: return en ? "Asked for access" : "Hat um Zugriff gebeten"
        case .promptAnswered:
            let label = entry.detail["choice"].flatMap(Choice.init(rawValue:)).map {
                choice($0, service: entry.service ?? .camera, language)
            }
            guard let label else { return en ? "You answered" : "Du hast geantwortet" }
            return en ? "You answered “\(label)”" : "Du hast „\(label)“ geantwortet"
        case .promptExpired: return en ? "The request expired unanswered" : "Die Anfrage ist unbeantwortet abgelaufen"
        case .promptCancelled: return en ? "The request was withdrawn" : "Die Anfrage wurde zurückgezogen"
        case .authorizationSet: return en ? "Changed in Settings" : "In den Einstellungen geändert"
        case .authorizationRevoked: return en ? "Access revoked" : "Zugriff widerrufen"
        case .authorizationExpired: return en ? "A one-time permission ended" : "Eine einmalige Erlaubnis ist abgelaufen"
        case .authorizationReinstalled:
            return en ? "Reset when the app was reinstalled" : "Bei der Neuinstallation der App zurückgesetzt"
        case .authorizationReset: return en ? "Reset" : "Zurückgesetzt"
        case .authorizationReconsent:
            return en
                ? "The app changed why it asks, and will ask again"
                : "Die App hat geändert, wofür sie fragt, und fragt erneut"
        case .locationButtonGranted:
            return en
                ? "You tapped the app's location button: allowed once"
                : "Du hast auf die Standorttaste der App getippt: einmal erlaubt"
        case .settingsChanged:
            let on = entry.detail["locationServicesEnabled"] == "true"
            return text(on ? .doneLocationOn : .doneLocationOff, language)
        case .consentSessionCreated: return en ? "A link to these pages was made" : "Ein Link zu diesen Seiten wurde erstellt"
        case .consentSessionExtended:
            return en ? "A session of these pages was extended" : "Eine Sitzung dieser Seiten wurde verlängert"
        case .consentSessionEnded: return en ? "A session of these pages ended" : "Eine Sitzung dieser Seiten wurde beendet"
        case .policyPut:
            return en
                ? "Your administrator set a rule for this access"
                : "Dein Administrator hat eine Regel für diesen Zugriff festgelegt"
        case .policyDeleted:
            return en
                ? "Your administrator removed a rule for this access"
                : "Dein Administrator hat eine Regel für diesen Zugriff entfernt"
        default: return en ? "Changed by the service" : "Vom Dienst geändert"
        }
    }

    /// "Result: …" before the state an entry of the history left (not the state now: an older
    /// entry's result may have changed since).
    static func now(_ state: String, _ language: ConsentLanguage) -> String {
        language == .en ? "Result: \(state)" : "Ergebnis: \(state)"
    }
}
