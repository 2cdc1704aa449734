public import Foundation

extension Rules {
    /// A press of the app's location button (SPEC §11, HIG "Location button"), in order:
    /// 1. a service without Allow Once (only location has the button) → `notFound`; the app
    ///    lacking the purpose string of the weakest level (location: While Using) →
    ///    `missingPurposeString`, whatever the state;
    /// 2. effective `restricted` → unchanged (`restricted`); `denied` → unchanged
    ///    (`servicesDisabled` when the Location Services switch is off, else `denied`): the
    ///    button never overrides a refusal;
    /// 3. authorized other than Allow Once (While Using, Always, provisional, by a policy) →
    ///    unchanged (`alreadyAuthorized`);
    /// 4. otherwise (notDetermined, a lapsed grant, or Allow Once in force): once the user has
    ///    confirmed the button, Allow Once is granted now (`userConsent`, the purpose string in
    ///    the user's `locale` as the button's prompt shows it, else the base string, SPEC §11),
    ///    lasting `onceTTL` from the press, so a press while Allow Once is in force
    ///    renews it; before that, the button's prompt (`allowOnce`, `deny`), or the one already
    ///    pending at `now`.
    /// - Parameters:
    ///   - service: the service of the button (location).
    ///   - app: the registered app, nil when never registered.
    ///   - stored: the stored record (`StoredAuthorization.initial` when never written).
    ///   - effective: the effective view of `stored` at `now`.
    ///   - pending: the stored-pending prompt of this authorization, if any (of any kind).
    ///   - now: the time of the press.
    ///   - onceTTL: how long an Allow Once grant lasts, seconds.
    ///   - locale: the user's settings `locale`, nil when not set.
    public static func locationButton(
        service: ServiceDefinition, app: App?, stored: StoredAuthorization, effective: Authorization, pending: Prompt?,
        now: Date, onceTTL: TimeInterval, locale: LanguageTag? = nil
    ) throws(PermissionError) -> LocationButtonPlan {
        guard service.specials.contains(.allowOnce), let weakest = service.levels.first else {
            throw .notFound(what: "location button for service \(service.id)")
        }
        guard let key = service.purposeKeys(for: weakest).first else {
            throw .notFound(what: "location button for service \(service.id)")
        }
        guard let purpose = app?.purposeStrings[key] else { throw .missingPurposeString(key: key) }
        switch effective.status {
        case .restricted:
            return .unchanged(.restricted)
        case .denied:
            return .unchanged(effective.reason == .servicesDisabled ? .servicesDisabled : .denied)
        case .authorized where !effective.once:
            return .unchanged(.alreadyAuthorized)
        case .authorized, .notDetermined:
            break
        }
        guard stored.buttonConfirmed else {
            if let pending, pending.kind == .locationButton, pending.effectiveState(at: now) == .pending {
                return .existing(pending)
            }
            return .prompt(
                PromptPlan(
                    kind: .locationButton, requestedLevel: weakest,
                    options: options(kind: .locationButton, level: weakest, service: service), purposeKey: key,
                    purpose: purpose))
        }
        var next = stored
        next.status = .authorized
        next.level = weakest
        next.provisional = false
        next.once = true
        next.expiresAt = now.addingTimeInterval(onceTTL).truncatedToMilliseconds
        next.reason = .userConsent
        let localized = locale.flatMap { app?.localizedPurpose(key: key, languages: [$0.rawValue]) }
        next.purpose = localized?.text ?? purpose
        next.purposeLanguage = localized?.language
        next.purposeKey = key
        return .grant(next)
    }

    /// Whether the button's prompt is still due (steps 2-4 of ``locationButton(service:app:stored:effective:pending:now:onceTTL:locale:)``):
    /// the effective status is `notDetermined` or Allow Once in force, and the user has not
    /// confirmed the button yet.
    public static func locationButtonPromptDue(stored: StoredAuthorization, effective: Authorization) -> Bool {
        guard !stored.buttonConfirmed else { return false }
        switch effective.status {
        case .notDetermined: return true
        case .authorized: return effective.once
        case .restricted, .denied: return false
        }
    }
}
