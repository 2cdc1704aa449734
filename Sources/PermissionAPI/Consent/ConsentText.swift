/// Every text of the consent pages, in each ``ConsentLanguage`` (SPEC §10): the renderers
/// take their words from here only, so a page is in one language throughout and a new
/// language is one column more. Texts with a value in them (an app's name, a service) are
/// functions in `ConsentText+Services.swift`; all are plain text, escaped by ``HTML``.
enum ConsentText {
    /// A fixed text.
    enum Key: CaseIterable {
        case navigation, navPrompts, navSettings, navHistory, signOut
        case sessionEndsAt, sessionEndsAfter, staySignedIn, sessionEndsSoon, sessionHasEnded, doneExtended, doneExtendLimit,
            doneExtendNotYet
        case promptsHeading, noPrompts, morePrompts, promptNoLongerWaiting
        case doneDecided, doneSaved, doneLocationOn, doneLocationOff
        case errorPurposeChanged, errorTextNotSent, errorNotPending, errorInvalidChoice, errorRestricted, errorInvalidSetting,
            errorInvalidSwitch
        case settingsHeading, locationServices, switchOn, switchOff, locationServicesOffNote, noApps, save
        case restricted, allowedByPolicy
        case historyHeading, noHistory, olderEntries, downloadData, exportTooLargeTitle, exportTooLargeText,
            exportRunningTitle, exportRunningText
        case openInBrowserTitle, openInBrowserText, openingTitle, openingText, openingLink, signedOutTitle, signedOutText
        case askForNewLink, linkExpiredTitle, linkExpiredText, linkIncompleteTitle, linkIncompleteText
        case linkInvalidTitle, linkInvalidText, linkUsedTitle, linkUsedText, linkUsedMayBeOpen, linkTimedOutTitle
        case linkTimedOutText
        case linkWithdrawnTitle, linkWithdrawnText, csrfTitle, csrfText, badFormTitle, badFormText
        case badFormMediaType, badFormTooLarge, badFormEncoding, badFormTooManyFields
        case forbiddenTitle, forbiddenText, notFoundTitle, notFoundText, failedTitle, failedText
        case methodNotAllowedTitle, methodNotAllowedText, badAddressTitle, badAddressText, refusedTitle, refusedText
        case busyTitle, busyText, unavailableTitle, outcomeUnknownText
    }

    /// `key` in `language`.
    static func text(_ key: Key, _ language: ConsentLanguage) -> String {
        let (en, de) = strings(key)
        switch language {
        case .en: return en
        case .de: return de
        }
    }

    /// `key` in English and German.
    private static func strings(_ key: Key) -> (en: String, de: String) {
        switch key {
        case .navigation: return ("Privacy", "Datenschutz")
        case .navPrompts: return ("Requests", "Anfragen")
        case .navSettings: return ("Settings", "Einstellungen")
        case .navHistory: return ("History", "Verlauf")
        case .signOut: return ("Sign Out", "Abmelden")
        case .sessionEndsAt: return ("This session ends at ", "Diese Sitzung endet um ")
        case .sessionEndsAfter: return (".", ".")
        case .staySignedIn: return ("Stay Signed In", "Angemeldet bleiben")
        case .sessionEndsSoon:
            return (
                "This session ends in less than 2 minutes. Choices you have not saved yet will be lost.",
                "Diese Sitzung endet in weniger als 2 Minuten. Noch nicht gesicherte Auswahlen gehen verloren."
            )
        case .sessionHasEnded:
            return (
                "This session has ended. To make more changes, ask the app for a new link.",
                "Diese Sitzung ist beendet. Für weitere Änderungen bitte die App um einen neuen Link."
            )
        case .doneExtended: return ("You stay signed in longer.", "Du bleibst länger angemeldet.")
        case .doneExtendNotYet:
            return (
                "This session was just extended; it can be extended again later.",
                "Diese Sitzung wurde gerade verlängert; sie lässt sich später erneut verlängern."
            )
        case .doneExtendLimit:
            return (
                "This session cannot last any longer. When it ends, ask the app for a new link.",
                "Diese Sitzung lässt sich nicht weiter verlängern. Wenn sie endet, bitte die App um einen neuen Link."
            )
        case .promptsHeading: return ("Requests", "Anfragen")
        case .noPrompts: return ("No app is waiting for an answer.", "Keine App wartet auf eine Antwort.")
        case .morePrompts:
            return (
                "More requests are waiting for an answer. They appear here as you answer these.",
                "Weitere Anfragen warten auf eine Antwort. Sie erscheinen hier, sobald du diese beantwortest."
            )
        case .promptNoLongerWaiting:
            return (
                "This request is no longer waiting for an answer.",
                "Diese Anfrage wartet nicht mehr auf eine Antwort."
            )
        case .doneDecided: return ("Your answer was saved.", "Deine Antwort wurde gesichert.")
        case .doneSaved: return ("Your setting was saved.", "Deine Einstellung wurde gesichert.")
        case .doneLocationOn: return ("Location Services are on.", "Ortungsdienste sind eingeschaltet.")
        case .doneLocationOff: return ("Location Services are off.", "Ortungsdienste sind ausgeschaltet.")
        case .errorNotPending:
            return (
                "This request is no longer waiting for an answer. Nothing was changed.",
                "Diese Anfrage wartet nicht mehr auf eine Antwort. Es wurde nichts geändert."
            )
        case .errorInvalidChoice:
            return (
                "That answer is not one this request offers. Nothing was changed.",
                "Diese Antwort bietet die Anfrage nicht an. Es wurde nichts geändert."
            )
        case .errorRestricted:
            return (
                "This setting is restricted and cannot be changed here. Nothing was changed.",
                "Diese Einstellung ist eingeschränkt und kann hier nicht geändert werden. Es wurde nichts geändert."
            )
        case .errorInvalidSetting:
            return (
                "That setting is not one this service offers. Nothing was changed.",
                "Diese Einstellung gibt es für diesen Dienst nicht. Es wurde nichts geändert."
            )
        case .errorInvalidSwitch:
            return (
                "The switch could not be read. Nothing was changed.",
                "Der Schalter konnte nicht gelesen werden. Es wurde nichts geändert."
            )
        case .settingsHeading: return ("Privacy & Security", "Datenschutz & Sicherheit")
        case .locationServices: return ("Location Services", "Ortungsdienste")
        case .switchOn: return ("On", "Ein")
        case .switchOff: return ("Off", "Aus")
        case .locationServicesOffNote:
            return (
                "Location Services are off: no app can use your location. Your choices below are kept for when you turn them on.",
                "Die Ortungsdienste sind aus: Keine App kann deinen Standort verwenden. Deine Auswahl unten bleibt für das Einschalten erhalten."
            )
        case .noApps: return ("No app has asked for access yet.", "Noch keine App hat um Zugriff gebeten.")
        case .save: return ("Save", "Sichern")
        case .allowedByPolicy:
            return (
                "Allowed for you: this setting is managed for you and cannot be changed here.",
                "Für dich erlaubt: Diese Einstellung wird für dich verwaltet und kann hier nicht geändert werden."
            )
        case .restricted:
            return (
                "Restricted: this setting is managed for you and cannot be changed here.",
                "Eingeschränkt: Diese Einstellung wird für dich verwaltet und kann hier nicht geändert werden."
            )
        case .historyHeading: return ("History", "Verlauf")
        case .noHistory: return ("Nothing has happened yet.", "Noch keine Einträge.")
        case .olderEntries: return ("Older Entries", "Ältere Einträge")
        case .downloadData: return ("Download My Data", "Meine Daten herunterladen")
        case .exportTooLargeTitle:
            return ("Your data is too large to download here", "Deine Daten sind zu umfangreich für einen Download hier")
        case .exportTooLargeText:
            return (
                "Ask the service that sent you the link for a copy of your data.",
                "Bitte den Dienst, der dir den Link geschickt hat, um eine Kopie deiner Daten."
            )
        case .exportRunningTitle:
            return ("Your data is already being downloaded", "Deine Daten werden bereits heruntergeladen")
        case .exportRunningText:
            return (
                "Wait until the download in progress has finished, then try again.",
                "Warte, bis der laufende Download fertig ist, und versuche es dann noch einmal."
            )
        case .openInBrowserTitle: return ("Open this link in your browser", "Öffne diesen Link in deinem Browser")
        case .openInBrowserText:
            return ("This link opens your privacy choices, once.", "Dieser Link öffnet deine Datenschutz-Auswahl, einmal.")
        case .openingTitle: return ("Opening your privacy choices", "Deine Datenschutz-Auswahl wird geöffnet")
        case .openingText:
            return (
                "If they do not open by themselves in a moment, use the link below.",
                "Falls sie sich nicht gleich von selbst öffnet, nutze den Link unten."
            )
        case .openingLink: return ("Open My Privacy Choices", "Meine Datenschutz-Auswahl öffnen")
        case .errorTextNotSent:
            return (
                "This answer did not say which text you were shown. Read the request again before you answer; nothing was changed.",
                "Diese Antwort sagt nicht, welcher Text dir gezeigt wurde. Lies die Anfrage noch einmal, bevor du antwortest; es wurde nichts geändert."
            )
        case .errorPurposeChanged:
            return (
                "The app changed what it says about this request. Read it again before you answer; nothing was changed.",
                "Die App hat geändert, was sie zu dieser Anfrage sagt. Lies es noch einmal, bevor du antwortest; es wurde nichts geändert."
            )
        case .signedOutTitle: return ("You are signed out", "Du bist abgemeldet")
        case .signedOutText:
            return (
                "Your choices are saved. To change them again, ask for a new link.",
                "Deine Auswahl ist gesichert. Um sie wieder zu ändern, bitte um einen neuen Link."
            )
        case .askForNewLink:
            return (
                "Ask the app or service that sent you the link for a new one.",
                "Bitte die App oder den Dienst, der dir den Link geschickt hat, um einen neuen."
            )
        case .linkExpiredTitle: return ("This link has expired", "Dieser Link ist abgelaufen")
        case .linkExpiredText:
            return (
                "Your session has ended or the link was not opened here.",
                "Deine Sitzung ist beendet oder der Link wurde nicht hier geöffnet."
            )
        case .linkIncompleteTitle: return ("This link is not complete", "Dieser Link ist unvollständig")
        case .linkIncompleteText:
            return ("The link is missing its code or was cut short.", "Dem Link fehlt sein Code oder er wurde abgeschnitten.")
        case .linkInvalidTitle: return ("This link is not valid", "Dieser Link ist ungültig")
        case .linkInvalidText: return ("The link's code is not one we made.", "Den Code dieses Links haben wir nicht erstellt.")
        case .linkUsedTitle: return ("This link was already used", "Dieser Link wurde schon verwendet")
        case .linkUsedText: return ("Each link opens one session, once.", "Jeder Link öffnet eine Sitzung, einmal.")
        case .linkUsedMayBeOpen:
            return (
                "If you opened it in this browser, your choices may still be open here:",
                "Wenn du ihn in diesem Browser geöffnet hast, ist deine Auswahl hier vielleicht noch offen:"
            )
        case .linkTimedOutTitle: return ("This link has expired", "Dieser Link ist abgelaufen")
        case .linkTimedOutText: return ("Links work for a limited time only.", "Links gelten nur eine begrenzte Zeit.")
        case .linkWithdrawnTitle: return ("This link was withdrawn", "Dieser Link wurde zurückgezogen")
        case .linkWithdrawnText: return ("The session of this link was ended.", "Die Sitzung dieses Links wurde beendet.")
        case .csrfTitle: return ("The form could not be sent", "Das Formular konnte nicht gesendet werden")
        case .csrfText:
            return (
                "Nothing was changed. Go back, reload the page and try again.",
                "Es wurde nichts geändert. Geh zurück, lade die Seite neu und versuche es noch einmal."
            )
        case .badFormTitle: return ("The form could not be read", "Das Formular konnte nicht gelesen werden")
        case .badFormText: return ("Nothing was changed:", "Es wurde nichts geändert:")
        case .badFormMediaType: return ("the form was not sent as a form.", "das Formular wurde nicht als Formular gesendet.")
        case .badFormTooLarge: return ("the form is too large.", "das Formular ist zu groß.")
        case .badFormEncoding: return ("the form is not well encoded.", "das Formular ist falsch kodiert.")
        case .badFormTooManyFields: return ("the form has too many fields.", "das Formular hat zu viele Felder.")
        case .forbiddenTitle: return ("Not allowed", "Nicht erlaubt")
        case .forbiddenText:
            return (
                "This session may only see and change your own choices.",
                "Diese Sitzung darf nur deine eigene Auswahl sehen und ändern."
            )
        case .notFoundTitle: return ("Not found", "Nicht gefunden")
        case .notFoundText: return ("There is nothing here for you.", "Hier gibt es nichts für dich.")
        case .methodNotAllowedTitle: return ("This page cannot be used this way", "Diese Seite lässt sich so nicht verwenden")
        case .methodNotAllowedText:
            return (
                "Nothing was changed. Use the links and buttons of these pages.",
                "Es wurde nichts geändert. Nutze die Links und Schaltflächen dieser Seiten."
            )
        case .refusedTitle:
            return ("Your browser's request could not be taken", "Die Anfrage deines Browsers konnte nicht angenommen werden")
        case .refusedText:
            return (
                "Nothing was changed. Go back to the page you came from and try again.",
                "Es wurde nichts geändert. Geh zurück zur vorigen Seite und versuche es noch einmal."
            )
        case .badAddressTitle: return ("This address is not valid", "Diese Adresse ist ungültig")
        case .badAddressText:
            return (
                "Check the address, or use the links of these pages.",
                "Prüfe die Adresse oder nutze die Links dieser Seiten."
            )
        case .failedTitle: return ("Something went wrong", "Etwas ist schiefgegangen")
        case .failedText:
            return (
                "Nothing was changed. Please try again in a moment.",
                "Es wurde nichts geändert. Bitte versuche es gleich noch einmal."
            )
        case .unavailableTitle: return ("The service is busy", "Der Dienst ist gerade ausgelastet")
        case .outcomeUnknownText:
            return (
                "Your choice may have been saved. Open your privacy choices again to see where things stand.",
                "Deine Auswahl wurde vielleicht gespeichert. Öffne deine Datenschutz-Auswahl erneut, um den aktuellen Stand zu sehen."
            )
        case .busyTitle: return ("Too many open pages", "Zu viele offene Seiten")
        case .busyText:
            return (
                "Close another window of these pages, or reload later.",
                "Schließe ein anderes Fenster dieser Seiten oder lade später neu."
            )
        }
    }
}
