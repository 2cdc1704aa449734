extension Rules {
    /// Whether `stored` is a grant given under a purpose string the app no longer shows
    /// (SPEC §11, re-consent): `authorized` with a purpose, and that purpose is not the app's
    /// current text for the key it was shown under (`purposeKey`), in the language it was
    /// shown in (the translation into `purposeLanguage`, or the base string when it was the
    /// base one). A grant recorded before the key was kept is compared with every key of the
    /// service, and counts as changed only when none of them has its text any more.
    ///
    /// Denials do not count: a denial made under an old text is still a denial, and asking
    /// again would let an app re-prompt a person who said no by rewording its text, which iOS
    /// never does. Grants without a purpose (settings, policies) were never shown a text.
    /// - Parameters:
    ///   - stored: the stored record.
    ///   - service: its service.
    ///   - app: the app as registered now; nil (never registered) counts as unchanged.
    public static func purposeChanged(stored: StoredAuthorization, service: ServiceDefinition, app: App?) -> Bool {
        guard stored.status == .authorized, let purpose = stored.purpose, let app else { return false }
        guard let current = app.purposeStrings(shownIn: stored.purposeLanguage) else { return true }
        if let key = stored.purposeKey { return current[key] != purpose }
        for keys in service.purposeKeys {
            for key in keys where current[key] == purpose { return false }
        }
        return true
    }

    /// The record a re-consent writes for `stored`: `notDetermined` (`purposeChanged`), no
    /// level, flags, expiry or purpose, declined levels kept; nil when `stored` is not a grant
    /// whose purpose changed (``purposeChanged(stored:service:app:)``).
    public static func reconsent(stored: StoredAuthorization, service: ServiceDefinition, app: App?) -> StoredAuthorization? {
        guard purposeChanged(stored: stored, service: service, app: app) else { return nil }
        return cleared(stored, reason: .purposeChanged)
    }
}
