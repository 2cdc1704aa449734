/// What one sweep wrote: prompts expired and grants lapsed, Allow Once or expiring, and
/// location alerts issued (actor `system`).
public struct SweepResult: Hashable, Sendable {
    public var expiredPrompts: Int
    public var lapsedGrants: Int
    /// Location alerts issued (SPEC §11).
    public var locationAlerts: Int
    /// Location alert schedules looked at and put off or dropped without an alert (an app no
    /// longer eligible, another prompt pending, no use in the last 3 days).
    public var locationAlertsPutOff: Int

    public init(expiredPrompts: Int = 0, lapsedGrants: Int = 0, locationAlerts: Int = 0, locationAlertsPutOff: Int = 0) {
        self.expiredPrompts = expiredPrompts
        self.lapsedGrants = lapsedGrants
        self.locationAlerts = locationAlerts
        self.locationAlertsPutOff = locationAlertsPutOff
    }

    /// Whether the sweep changed nothing.
    public var isEmpty: Bool { expiredPrompts == 0 && lapsedGrants == 0 && locationAlerts == 0 && locationAlertsPutOff == 0 }

    /// Whether one kind of work reached `limit`: more may be due at once.
    public func reached(_ limit: Int) -> Bool {
        expiredPrompts >= limit || lapsedGrants >= limit || locationAlerts + locationAlertsPutOff >= limit
    }
}
