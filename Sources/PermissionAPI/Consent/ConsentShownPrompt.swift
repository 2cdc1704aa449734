import PermissionDomain

/// A pending prompt as a page shows it: the app's registered name (else its id) and the
/// purpose string chosen for the page's languages (``PermissionService/purposeText(for:languages:)``).
struct ConsentShownPrompt: Sendable {
    let prompt: Prompt
    let appName: String
    let purpose: PurposeString
    /// The translation's language; nil for the base string (what the form says was shown).
    let purposeLanguage: LanguageTag?
    /// The language the text is in, for its `lang`: the translation's, else the app's
    /// development language (the base strings'), else unknown.
    let textLanguage: LanguageTag?

    /// `prompt` as shown to a person whose languages are `languages`.
    init(_ prompt: Prompt, languages: [String], permissions: PermissionService, names: inout ConsentApps) throws {
        self.prompt = prompt
        appName = try names.name(of: prompt.app, permissions)
        let shown = try permissions.purposeText(for: prompt, languages: languages)
        purpose = shown.text
        purposeLanguage = shown.language
        textLanguage = try shown.language ?? names.registration(of: prompt.app, permissions)?.developmentLanguage
    }
}

/// Apps' registrations, each read once per page: the display name (the registered name, else
/// the id) and the purpose strings a settings entry offers its options by.
struct ConsentApps: Sendable {
    private var registrations: [AppID: App?] = [:]

    /// The app's registration, nil when it has none.
    mutating func registration(of app: AppID, _ permissions: PermissionService) throws -> App? {
        if let known = registrations[app] { return known }
        var registered: App?
        do {
            registered = try permissions.app(app)
        } catch PermissionError.notFound {}
        registrations.updateValue(registered, forKey: app)  // nil kept too: no second read
        return registered
    }

    mutating func name(of app: AppID, _ permissions: PermissionService) throws -> String {
        guard let name = try registration(of: app, permissions)?.name, !name.isEmpty else { return app.rawValue }
        return name
    }
}
