/// Why a press of the location button changes nothing (SPEC §11): the answer names it.
public enum LocationButtonStanding: String, Sendable, CaseIterable, Hashable {
    /// While Using or Always is granted (by the user or a policy): the app already has more
    /// than a press would grant.
    case alreadyAuthorized
    /// The user denied location to the app; only Settings changes that.
    case denied
    /// A policy restricts location for the app.
    case restricted
    /// The user's Location Services switch is off.
    case servicesDisabled
}
