/// Behaviours of a built-in service beyond the common rules (SPEC §2 "special" column).
public enum ServiceSpecial: String, Sendable, CaseIterable, Hashable {
    /// `allowOnce` is offered; the grant lapses after the once TTL or at `sessionEnded`.
    case allowOnce
    /// `allowWhileUsing` on an Always request grants provisional Always; the system's
    /// upgrade prompt (`backgroundLocationUsed`) confirms or narrows it (seed 004).
    case provisionalAlways
    /// The user's global Location Services switch applies.
    case locationServicesSwitch
    /// Reset to notDetermined (`reinstall`) when the app is reinstalled (seed 000).
    case resetOnReinstall
    /// The `limited` level means items the user selected.
    case userSelectedItems
}

extension ServiceSpecial {
    /// The specials a store keeps as a comma-joined list, split into `parts`; nil when a part
    /// names none (the stored value was changed outside this program).
    package static func set(storedAs parts: [Substring]) -> Set<ServiceSpecial>? {
        var specials = Set<ServiceSpecial>()
        for part in parts {
            guard let special = ServiceSpecial(rawValue: String(part)) else { return nil }
            specials.insert(special)
        }
        return specials
    }
}
