public import Foundation

extension Rules {
    /// The outcome of an app's request for `level` (SPEC §4 Request, in order):
    /// 1. a level the service lacks → `unknownLevel`; a purpose key the level needs missing
    ///    from the app (or the app never registered) → `missingPurposeString` naming the first
    ///    missing key, whatever the state (ITMS-90683);
    /// 2. effective `restricted` or `denied`, or authorized at `level` or above → no prompt;
    /// 3. authorized below `level`: no prompt for location (whenInUse → always goes through
    ///    the provisional flow or settings), nor for a level the user declined before, nor when
    ///    `level` needs no purpose key the held level lacks (limited → full); otherwise a prompt
    ///    (calendars writeOnly → full, photos addOnly → limited/full: separate access on iOS);
    /// 4. `notDetermined` → a prompt;
    /// and where a prompt is due, a prompt still pending at `now` is returned as it is.
    /// - Parameters:
    ///   - level: the level asked for.
    ///   - service: the service.
    ///   - app: the registered app, nil when never registered.
    ///   - stored: the stored record (`StoredAuthorization.initial` when never written).
    ///   - effective: the effective view of `stored` at `now`.
    ///   - pending: the stored-pending prompt of this authorization, if any.
    ///   - now: the current time.
    public static func request(
        level: Level, service: ServiceDefinition, app: App?, stored: StoredAuthorization, effective: Authorization,
        pending: Prompt?, now: Date
    ) throws(PermissionError) -> RequestPlan {
        try service.requireLevel(level)
        let keys = service.purposeKeys(for: level)
        for key in keys where app?.purposeStrings[key] == nil {
            throw .missingPurposeString(key: key)
        }
        guard promptDue(level: level, service: service, stored: stored, effective: effective) else { return .noPrompt }
        if let pending, pending.effectiveState(at: now) == .pending { return .existing(pending) }
        return .prompt(try requestPrompt(level: level, service: service, app: app))
    }

    /// Whether a request for `level` prompts, given the state alone (steps 2-4 of `request`;
    /// `level` must be one of the service's).
    public static func promptDue(
        level: Level, service: ServiceDefinition, stored: StoredAuthorization, effective: Authorization
    ) -> Bool {
        switch effective.status {
        case .restricted, .denied:
            return false
        case .notDetermined:
            return true
        case .authorized:
            guard let held = effective.level, let heldRank = service.rank(of: held),
                let wantedRank = service.rank(of: level), heldRank < wantedRank
            else { return false }
            if service.specials.contains(.provisionalAlways) { return false }
            if stored.declinedLevels.contains(level) { return false }
            let heldKeys = Set(service.purposeKeys(for: held))
            return !service.purposeKeys(for: level).allSatisfy { heldKeys.contains($0) }
        }
    }

    /// The prompt of a request for `level`: options per the SPEC §4 table; it shows the purpose
    /// string of the level's first key (for location `always`, the whenInUse one, as iOS 13 does).
    static func requestPrompt(level: Level, service: ServiceDefinition, app: App?) throws(PermissionError) -> PromptPlan {
        let keys = service.purposeKeys(for: level)
        guard let key = keys.first else {
            throw .unknownLevel(level: level.rawValue, service: service.id, allowed: service.levels)
        }
        guard let purpose = app?.purposeStrings[key] else { throw .missingPurposeString(key: key) }
        return PromptPlan(
            kind: .request, requestedLevel: level, options: options(kind: .request, level: level, service: service),
            purposeKey: key, purpose: purpose)
    }

    /// The choices a prompt offers (SPEC §4 prompt table):
    /// - the location upgrade prompt: `keepWhileUsing`, `changeToAlways`;
    /// - the location alert: `keepAlways`, `changeToWhileUsing` (SPEC §11);
    /// - the location button's prompt: `allowOnce`, `deny` (SPEC §11);
    /// - location (Allow Once services): `allowOnce`, `allowWhileUsing`, `deny`;
    /// - `limited` or `full` of a service that has both (photos, contacts): `selectItems`, `allowFull`, `deny`;
    /// - any other level: `allow`, `deny`.
    public static func options(kind: PromptKind, level: Level, service: ServiceDefinition) -> [Choice] {
        if kind == .upgrade { return [.keepWhileUsing, .changeToAlways] }
        if kind == .locationAlert { return [.keepAlways, .changeToWhileUsing] }
        if kind == .locationButton { return [.allowOnce, .deny] }
        if service.specials.contains(.allowOnce) { return [.allowOnce, .allowWhileUsing, .deny] }
        if (level == .limited || level == .full) && service.has(.limited) && service.has(.full) {
            return [.selectItems, .allowFull, .deny]
        }
        return [.allow, .deny]
    }

    /// The system's upgrade prompt for a provisional Always grant (SPEC §4 Lifecycle
    /// `backgroundLocationUsed`; seed 004): issued only when the effective authorization is a
    /// provisional Always grant; it shows the purpose string of the level's own (last) key.
    /// Returns nil when no upgrade prompt is due.
    public static func upgradePrompt(
        service: ServiceDefinition, app: App?, effective: Authorization
    ) throws(PermissionError) -> PromptPlan? {
        guard upgradeDue(service: service, effective: effective), let key = service.purposeKeys(for: service.strongestLevel).last
        else { return nil }
        let level = service.strongestLevel
        guard let purpose = app?.purposeStrings[key] else { throw .missingPurposeString(key: key) }
        return PromptPlan(
            kind: .upgrade, requestedLevel: level, options: options(kind: .upgrade, level: level, service: service),
            purposeKey: key, purpose: purpose)
    }

    /// Whether the upgrade prompt is due: the effective authorization is a provisional grant
    /// of the strongest level of a service with the provisional Always flow.
    public static func upgradeDue(service: ServiceDefinition, effective: Authorization) -> Bool {
        service.specials.contains(.provisionalAlways) && effective.status == .authorized && effective.provisional
            && effective.level == service.strongestLevel
    }
}
