import PermissionDomain

/// A pending prompt as a page shows it: the app's registered name (else its id) and the
/// purpose string chosen for the page's languages (``PermissionService/purposeText(for:languages:)``).
struct ConsentShownPrompt: Sendable {
    let prompt: Prompt
    let appName: String
    let purpose: PurposeString
    let purposeLanguage: LanguageTag?

    /// `prompt` as shown to a person whose languages are `languages`.
    init(_ prompt: Prompt, languages: [String], permissions: PermissionService, names: inout ConsentAppNames) throws {
        self.prompt = prompt
        appName = try names.name(of: prompt.app, permissions)
        let shown = try permissions.purposeText(for: prompt, languages: languages)
        purpose = shown.text
        purposeLanguage = shown.language
    }
}

/// Apps' display names, each looked up once per page: the registered name, else the id.
struct ConsentAppNames: Sendable {
    private var names: [AppID: String] = [:]

    mutating func name(of app: AppID, _ permissions: PermissionService) throws -> String {
        if let known = names[app] { return known }
        var name = app.rawValue
        do {
            let registered = try permissions.app(app).name
            if !registered.isEmpty { name = registered }
        } catch PermissionError.notFound {}
        names[app] = name
        return name
    }
}
