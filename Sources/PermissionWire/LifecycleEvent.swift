public import Foundation

/// The body of `POST /v1/users/{user}/apps/{app}/lifecycle` (SPEC §4 Lifecycle).
public struct LifecycleEvent: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["event", "usedAt"]
    public static let notNullable: Set<String> = ["usedAt"]

    public var event: Event
    /// `backgroundLocationUsed` only: when the background use happened (RFC 3339), within the
    /// past 3 days; absent: now.
    public var usedAt: Date?

    public init(event: Event, usedAt: Date? = nil) {
        self.event = event
        self.usedAt = usedAt
    }

    /// `sessionEnded` ends Allow Once grants; `reinstalled` resets location;
    /// `backgroundLocationUsed` reports one background use of location: it issues the upgrade
    /// prompt for a provisional Always grant and counts towards location alerts for any
    /// Always grant.
    public enum Event: String, WireEnum {
        case sessionEnded, reinstalled, backgroundLocationUsed
    }
}
