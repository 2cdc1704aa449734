/// Why an authorization has its status (SPEC §3).
public enum Reason: String, Sendable, CaseIterable, Hashable {
    /// Never decided.
    case `default`
    /// Answered a prompt.
    case userConsent
    /// Changed in settings (or revoked).
    case userSet
    /// An operator's restriction or pre-approval.
    case policy
    /// The user's Location Services switch is off.
    case servicesDisabled
    /// An Allow Once grant ended.
    case expired
    /// An operator's reset (`tccutil reset`).
    case reset
    /// The app was reinstalled (location only).
    case reinstall
    /// The app changed the purpose string the grant was given under and asked for consent
    /// again (`PUT /v1/apps/{app}` with `reconsent`, SPEC §11).
    case purposeChanged
}
