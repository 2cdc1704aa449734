public import Foundation

extension Rules {
    /// The stored record after the user's change in settings (SPEC §4 Settings):
    /// `authorized` at a level the service has, `denied`, or `notDetermined` ("Ask Next Time",
    /// which also forgets declined levels). An explicit choice ends the provisional flow and
    /// any once grant; the reason is `userSet`, the purpose nil. `authorized` may carry
    /// `until`: the grant then ends then (SPEC §11, ``expiry(until:now:maxDuration:)``).
    /// As on iOS, where Settings offers an app only the levels its Info.plist has usage
    /// descriptions for, `authorized` needs the purpose strings of the level, as a request does.
    /// - Parameters:
    ///   - app: the app as registered, nil when it never was (it has no purpose strings); read
    ///     only for `authorized`.
    ///   - now: the time of the change.
    ///   - until: when an authorized grant ends, nil for none.
    ///   - maxGrantDuration: the longest a grant may last (the horizon for `until`), seconds.
    /// - Throws: ``PermissionError/restrictedByPolicy`` or ``PermissionError/grantedByPolicy``
    ///   when a policy decides the effective status (``requireUnmanaged(_:)``), except a grant
    ///   stronger than an allow policy's level (``raisesAbovePolicy(_:service:status:level:)``);
    ///   `invalidArgument` for
    ///   `restricted`, a missing level with `authorized` or a level with another status;
    ///   `invalidCombination` (field `until`) for `until` with another status than
    ///   `authorized`, in the past or beyond `maxGrantDuration`; `unknownLevel` for a level
    ///   the service lacks; `missingPurposeString` for an authorized level whose purpose string
    ///   the app does not have.
    public static func settings(
        stored: StoredAuthorization, effective: Authorization, service: ServiceDefinition, app: App?,
        status: AuthorizationStatus, level: Level?, now: Date, until: Date? = nil,
        maxGrantDuration: TimeInterval = .infinity
    ) throws(PermissionError) -> StoredAuthorization {
        // An allow policy is a floor (``effective(stored:service:policies:settings:now:)``): a
        // grant of a stronger level than it gives is the user's to make, and takes effect.
        if !raisesAbovePolicy(effective, service: service, status: status, level: level) {
            try requireUnmanaged(effective)
        }
        if until != nil, status != .authorized {
            throw .invalidCombination(field: "until", why: "only an authorized status can have an end")
        }
        var next = cleared(stored, reason: .userSet)
        switch (status, level) {
        case (.restricted, _):
            throw .invalidArgument(field: "status", why: "restricted is set by policies, not in settings")
        case (.authorized, nil):
            throw .invalidCombination(field: "level", why: "required when status is authorized")
        case (.authorized, let level?):
            try service.requireLevel(level)
            for key in service.purposeKeys(for: level) where app?.purposeStrings[key] == nil {
                throw .missingPurposeString(key: key)
            }
            let rank = service.rank(of: level) ?? 0
            next.status = .authorized
            next.level = level
            next.expiresAt = try expiry(until: until, now: now, maxDuration: maxGrantDuration)
            next.declinedLevels = stored.declinedLevels.filter { (service.rank(of: $0) ?? -1) > rank }
        case (_, .some):
            throw .invalidCombination(field: "level", why: "only an authorized status has a level")
        case (.denied, nil):
            next.status = .denied
        case (.notDetermined, nil):
            next.declinedLevels = []
        }
        return next
    }

    /// The stored record after the user revokes access (SPEC §4 Revoke): `denied` (`userSet`).
    /// - Throws: as ``requireUnmanaged(_:)``.
    public static func revoke(
        stored: StoredAuthorization, effective: Authorization
    ) throws(PermissionError)
        -> StoredAuthorization
    {
        try requireUnmanaged(effective)
        var next = cleared(stored, reason: .userSet)
        next.status = .denied
        return next
    }

    /// Whether `status` at `level` grants more than the allow policy that decides `effective`
    /// (a stronger level of `service`), so that the stored grant would take effect above it.
    static func raisesAbovePolicy(
        _ effective: Authorization, service: ServiceDefinition, status: AuthorizationStatus, level: Level?
    ) -> Bool {
        guard effective.reason == .policy, effective.status == .authorized, status == .authorized, let level,
            let wanted = service.rank(of: level), let held = effective.level.flatMap({ service.rank(of: $0) })
        else { return false }
        return wanted > held
    }

    /// Refuses a change by the user (settings, revoke) of an authorization a policy decides: a
    /// restrict policy (``PermissionError/restrictedByPolicy``, SPEC §4 Settings) or an allow
    /// policy (``PermissionError/grantedByPolicy``); the effective status would not move, so the
    /// answer would say the change was made while nothing the caller sees changed. With Location
    /// Services off the switch decides instead, and the stored choice may change beneath it.
    static func requireUnmanaged(_ effective: Authorization) throws(PermissionError) {
        guard effective.reason == .policy else { return }
        throw effective.status == .restricted ? .restrictedByPolicy : .grantedByPolicy
    }

    /// The record back to `notDetermined` with `reason` (reset, reinstall), declined levels and
    /// the location button's confirmation forgotten; nil when it is already undetermined with
    /// nothing to forget (no change).
    public static func reset(stored: StoredAuthorization, reason: Reason) -> StoredAuthorization? {
        guard stored.status != .notDetermined || !stored.declinedLevels.isEmpty || stored.buttonConfirmed else {
            return nil
        }
        var next = cleared(stored, reason: reason)
        next.declinedLevels = []
        next.buttonConfirmed = false
        return next
    }

    /// The record after its once grant ends (`sessionEnded`, or the once TTL): `notDetermined`
    /// (`expired`); nil when the record is not a once grant.
    public static func endOnce(stored: StoredAuthorization) -> StoredAuthorization? {
        guard stored.once, stored.status == .authorized else { return nil }
        var next = cleared(stored, reason: .expired)
        next.declinedLevels = stored.declinedLevels
        return next
    }

    /// `notDetermined` with `reason`, no level, flags, expiry or purpose; declined levels kept.
    static func cleared(_ stored: StoredAuthorization, reason: Reason) -> StoredAuthorization {
        var next = stored
        next.status = .notDetermined
        next.level = nil
        next.provisional = false
        next.once = false
        next.expiresAt = nil
        next.reason = reason
        next.purpose = nil
        next.purposeLanguage = nil
        next.purposeKey = nil
        return next
    }
}
