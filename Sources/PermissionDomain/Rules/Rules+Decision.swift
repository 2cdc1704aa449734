public import Foundation

extension Rules {
    /// What `choice` grants on `prompt` (SPEC §4 prompt table), nil for `deny`:
    /// `allow` → the requested level; `allowOnce` → the weakest level, once;
    /// `allowWhileUsing` → whenInUse, or for an Always request Always provisional;
    /// `keepWhileUsing` → the weakest level; `changeToAlways` → the requested (strongest) level;
    /// `selectItems` → limited; `allowFull` → full; on a location alert `keepAlways` → the
    /// requested (strongest) level, made final when provisional (``decide(prompt:choice:stored:service:now:onceTTL:until:maxGrantDuration:)``),
    /// and `changeToWhileUsing` → the weakest level.
    public static func grant(for choice: Choice, prompt: Prompt, service: ServiceDefinition) -> Grant? {
        let weakest = service.levels[0]
        switch choice {
        case .deny: return nil
        case .allow: return Grant(level: prompt.requestedLevel)
        case .allowOnce: return Grant(level: weakest, once: true)
        case .allowWhileUsing:
            if service.specials.contains(.provisionalAlways), prompt.requestedLevel != weakest {
                return Grant(level: prompt.requestedLevel, provisional: true)
            }
            return Grant(level: weakest)
        case .keepWhileUsing: return Grant(level: weakest)
        case .changeToAlways: return Grant(level: prompt.requestedLevel)
        case .selectItems: return Grant(level: .limited)
        case .allowFull: return Grant(level: .full)
        case .keepAlways: return Grant(level: prompt.requestedLevel)
        case .changeToWhileUsing: return Grant(level: weakest)
        }
    }

    /// The stored record after `choice` on `prompt` (SPEC §4), before its version and time
    /// are set:
    /// - a grant → authorized (`userConsent`, the prompt's purpose and its language); Allow Once expires at
    ///   `now + onceTTL`, any other grant at `until` when given (SPEC §11, ``expiry(until:now:maxDuration:)``),
    ///   and on the upgrade prompt or a location alert without `until` at the end the grant held had;
    ///   `keepWhileUsing` also marks the stronger level as declined; `allowOnce` on the location
    ///   button's prompt also confirms the button (`buttonConfirmed`);
    /// - `deny` on the location button's prompt → nothing changes (the next press asks again);
    /// - `keepAlways` on a location alert → an explicit grant stays as it is; a provisional one
    ///   becomes final (an explicit choice ends the provisional flow, SPEC §4): not provisional,
    ///   `userConsent`, with the Always purpose the alert showed, so no upgrade prompt follows;
    /// - `deny` while a grant is held (a prompt for more than is held) → the grant is kept;
    /// - `deny` otherwise → denied (`userConsent`, the prompt's purpose);
    /// and on `deny` every level the prompt offered is marked declined: never prompted again.
    /// - Parameters:
    ///   - until: when the grant ends (an expiring grant), nil for none.
    ///   - maxGrantDuration: the longest a grant may last (the horizon for `until`), seconds.
    /// - Throws: `promptNotPending` when the prompt is not pending at `now`; `invalidChoice`
    ///   when the prompt does not offer `choice`; `invalidCombination` (field `until`) for
    ///   `until` with a choice that grants nothing or grants Allow Once, in the past or beyond
    ///   `maxGrantDuration`.
    public static func decide(
        prompt: Prompt, choice: Choice, stored: StoredAuthorization, service: ServiceDefinition, now: Date,
        onceTTL: TimeInterval, until: Date? = nil, maxGrantDuration: TimeInterval = .infinity
    ) throws(PermissionError) -> StoredAuthorization {
        let state = prompt.effectiveState(at: now)
        guard state == .pending else { throw .promptNotPending(state) }
        guard prompt.options.contains(choice) else {
            throw .invalidChoice(choice: choice.rawValue, allowed: prompt.options)
        }
        let granted = grant(for: choice, prompt: prompt, service: service)
        if until != nil {
            guard let granted else {
                throw .invalidCombination(field: "until", why: "only a choice that grants access can have an end")
            }
            guard !granted.once else {
                throw .invalidCombination(field: "until", why: "an Allow Once grant ends on its own")
            }
        }
        if choice == .keepAlways, until != nil {
            throw .invalidCombination(field: "until", why: "keepAlways keeps the grant as it is")
        }
        let end = try expiry(until: until, now: now, maxDuration: maxGrantDuration)
        var next = stored
        if choice == .keepAlways {
            guard stored.provisional else { return next }
            next.provisional = false
            next.reason = .userConsent
            next.takePurpose(of: prompt)
            return next
        }
        if let grant = granted {
            next.status = .authorized
            next.level = grant.level
            next.provisional = grant.provisional
            next.once = grant.once
            next.expiresAt = grant.once ? now.addingTimeInterval(onceTTL).truncatedToMilliseconds : end
            // The system's prompts about a grant held (the upgrade prompt, a location alert) keep
            // it or change its level; they do not take away the end the user gave it.
            if end == nil, prompt.kind == .upgrade || prompt.kind == .locationAlert, stored.status == .authorized,
                !stored.once
            {
                next.expiresAt = stored.expiresAt
            }
            next.reason = .userConsent
            next.takePurpose(of: prompt)
            if choice == .keepWhileUsing {
                next.declinedLevels = merge(next.declinedLevels, [prompt.requestedLevel])
            }
            if prompt.kind == .locationButton { next.buttonConfirmed = true }
            return next
        }
        // The location button's explanation declined: no grant and nothing remembered, so the
        // next press explains the button again (as iOS shows its alert until confirmed).
        if prompt.kind == .locationButton { return next }
        let offered = prompt.options.compactMap { grant(for: $0, prompt: prompt, service: service)?.level }
        next.declinedLevels = merge(next.declinedLevels, offered)
        if stored.status == .authorized, !stored.lapsed(at: now) { return next }
        next.status = .denied
        next.level = nil
        next.provisional = false
        next.once = false
        next.expiresAt = nil
        next.reason = .userConsent
        next.takePurpose(of: prompt)
        return next
    }

    /// The sorted union of two level lists.
    static func merge(_ lhs: [Level], _ rhs: [Level]) -> [Level] {
        Array(Set(lhs).union(rhs)).sorted()
    }
}

extension StoredAuthorization {
    /// The purpose `prompt` showed, as the record decided on it keeps it: the text, its
    /// language and its key.
    fileprivate mutating func takePurpose(of prompt: Prompt) {
        purpose = prompt.purpose
        purposeLanguage = prompt.purposeLanguage
        purposeKey = prompt.purposeKey
    }
}
