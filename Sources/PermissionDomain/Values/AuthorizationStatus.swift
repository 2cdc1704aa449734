/// The four statuses every service shares (SPEC §3; seed 000, "User Data Isolation in iOS 6").
public enum AuthorizationStatus: String, Sendable, CaseIterable, Hashable {
    case notDetermined
    /// Decided by an operator's `restrict` policy; never stored on a record.
    case restricted
    case denied
    case authorized
}
