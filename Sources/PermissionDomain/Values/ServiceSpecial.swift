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
