public import Foundation

extension Rules {
    /// The effective authorization (SPEC §3), in this order: a `restrict` policy →
    /// `restricted`; location with the user's Location Services off → `denied`
    /// (`servicesDisabled`), the stored choice kept; an `allow` policy → `authorized` at the
    /// policy's level (`policy`), unless the stored grant is stronger; a lapsed grant (Allow
    /// Once or expiring, `expiresAt <= now`) → `notDetermined` (`expired`); else the stored record.
    /// - Parameters:
    ///   - stored: the stored record (`StoredAuthorization.initial` when never written).
    ///   - service: the record's service.
    ///   - policies: policies that may apply; those not matching the record are ignored.
    ///   - settings: the user's settings, nil when never changed (Location Services on).
    ///   - now: the current time.
    public static func effective(
        stored: StoredAuthorization, service: ServiceDefinition, policies: [Policy], settings: UserSettings?,
        now: Date
    ) -> Authorization {
        var allowLevel: Level?
        var allowRank = -1
        for policy in policies where policy.matches(user: stored.user, app: stored.app, service: stored.service) {
            switch policy.effect {
            case .restrict:
                return derived(stored, status: .restricted, level: nil, reason: .policy)
            case .allow:
                if let level = policy.level, let rank = service.rank(of: level), rank > allowRank {
                    allowLevel = level
                    allowRank = rank
                }
            }
        }
        if service.hasLocationServicesSwitch, settings?.locationServicesEnabled == false {
            return derived(stored, status: .denied, level: nil, reason: .servicesDisabled)
        }
        let lapsed = stored.lapsed(at: now)
        if let allowLevel {
            let storedRank =
                stored.status == .authorized && !lapsed ? stored.level.flatMap { service.rank(of: $0) } ?? -1 : -1
            if storedRank <= allowRank {
                return derived(stored, status: .authorized, level: allowLevel, reason: .policy)
            }
        }
        if lapsed {
            return derived(stored, status: .notDetermined, level: nil, reason: .expired)
        }
        return Authorization(stored: stored)
    }

    /// A view that replaces the stored decision: no flags, no purpose; version and time kept.
    private static func derived(
        _ stored: StoredAuthorization, status: AuthorizationStatus, level: Level?, reason: Reason
    ) -> Authorization {
        Authorization(
            user: stored.user, app: stored.app, service: stored.service, status: status, level: level,
            provisional: false, once: false, expiresAt: nil, reason: reason, purpose: nil,
            updatedAt: stored.updatedAt, version: stored.version)
    }
}
