extension PermissionService {
    /// The purpose string to show for `prompt` to a person whose languages are `languages`
    /// (most preferred first, e.g. ``PurposeLanguage/preferences(acceptLanguage:)`` of a consent
    /// page's `Accept-Language`): the app's best matching localization of the prompt's purpose
    /// key (RFC 4647 lookup), else the text the prompt was made with, which is the match for
    /// the user's settings `locale` when it was made, else the base string (SPEC §11).
    /// - Returns: the text and its language (nil for the base string).
    public func purposeText(for prompt: Prompt, languages: [String]) throws -> (text: PurposeString, language: LanguageTag?) {
        guard !languages.isEmpty else { return (prompt.purpose, prompt.purposeLanguage) }
        return try store.read { reader in try purposeText(reader, for: prompt, languages: languages) }
    }

    /// ``purposeText(for:languages:)`` with the app as `reader` sees it.
    func purposeText(
        _ reader: any PermissionReader, for prompt: Prompt, languages: [String]
    ) throws -> (text: PurposeString, language: LanguageTag?) {
        guard !languages.isEmpty, let app = try reader.app(prompt.app),
            let localized = app.localizedPurpose(key: prompt.purposeKey, languages: languages)
        else { return (prompt.purpose, prompt.purposeLanguage) }
        return (localized.text, localized.language)
    }

    /// `plan` with the purpose string in the user's language: the app's best localization of
    /// the plan's purpose key for the user's settings `locale`, else the base string. The
    /// request flow is called by the app's backend, whose own `Accept-Language` says nothing
    /// about the user, so only the user's `locale` counts here.
    func localized(_ reader: any PermissionReader, _ plan: PromptPlan, app: AppID, user: UserID) throws -> PromptPlan {
        guard let locale = try reader.userSettings(user)?.locale, let registered = try reader.app(app),
            let localized = registered.localizedPurpose(key: plan.purposeKey, languages: [locale.rawValue])
        else { return plan }
        var copy = plan
        copy.purpose = localized.text
        copy.purposeLanguage = localized.language
        return copy
    }

    /// The audit `detail` of a prompt entry: `kind`, `level`, for a localized purpose string
    /// `purposeLanguage` (the chain hashes `detail`, so the language is covered without a new
    /// column), and for a location alert `backgroundUses`, the count it showed.
    static func promptDetail(_ prompt: Prompt, _ more: [String: String] = [:]) -> [String: String] {
        var detail = more
        detail["kind"] = prompt.kind.rawValue
        detail["level"] = prompt.requestedLevel.rawValue
        detail["purposeLanguage"] = prompt.purposeLanguage?.rawValue
        detail["backgroundUses"] = prompt.backgroundUses.map(String.init)
        return detail
    }
}
