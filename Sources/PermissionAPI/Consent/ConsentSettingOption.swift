import PermissionDomain

/// One choice of an app's entry in Settings › Privacy (SPEC §10), as the form posts it
/// (`name="value"`), and the settings change it is (SPEC §4 Settings, the same call as
/// `PUT .../authorizations/{service}`): location Never / Ask Next Time / While Using the App /
/// Always, photos None / Add Photos Only / Limited Access / Full Access, every other service
/// Off / On.
enum ConsentSettingOption: String, Sendable, CaseIterable {
    case never, askNextTime, whileUsing, always
    /// Photos' None (not `none`, which an optional would take for nil).
    case noAccess = "none"
    case addOnly, limited, full
    case off, on

    /// The options of `service`'s entries, in display order.
    static func options(for service: ServiceDefinition) -> [ConsentSettingOption] {
        switch service.id {
        case .location: return [.never, .askNextTime, .whileUsing, .always]
        case .photos: return [.noAccess, .addOnly, .limited, .full]
        default: return [.off, .on]
        }
    }

    /// The options `app`'s entry for `service` offers: as on iOS, an option that grants a level
    /// only when the app has every purpose string that level needs (no Always for an app without
    /// `NSLocationAlwaysAndWhenInUseUsageDescription`; no On for an app with none of the
    /// service's), except the `current` one, which is shown as it is.
    static func options(
        for service: ServiceDefinition, app: App?, current: ConsentSettingOption?
    )
        -> [ConsentSettingOption]
    {
        options(for: service).filter { option in
            guard option != current else { return true }
            if option == .on { return onLevel(for: service, app: app) != nil }
            guard let level = option.level, service.has(level) else { return true }
            return hasPurposeStrings(app, for: level, of: service)
        }
    }

    /// The level On grants an entry not on yet: the strongest of `service`'s levels whose
    /// purpose strings `app` has (calendars On for an app with only the write-only key is
    /// write-only access, as iOS would ask it), nil when it has none.
    static func onLevel(for service: ServiceDefinition, app: App?) -> Level? {
        service.levels.last { hasPurposeStrings(app, for: $0, of: service) }
    }

    private static func hasPurposeStrings(_ app: App?, for level: Level, of service: ServiceDefinition) -> Bool {
        service.purposeKeys(for: level).allSatisfy { app?.purposeStrings[$0] != nil }
    }

    /// The level this option grants, for the options that name one.
    var level: Level? {
        switch self {
        case .whileUsing: .whenInUse
        case .always: .always
        case .addOnly: .addOnly
        case .limited: .limited
        case .full: .full
        case .never, .askNextTime, .noAccess, .off, .on: nil
        }
    }

    /// The settings change this option is for `service`: the status and level to set.
    /// `on` is the strongest level `app` has the purpose strings of (``onLevel(for:app:)``),
    /// except that an entry already on keeps its level (turning on what is on changes nothing).
    /// - Returns: nil when `service`'s entries do not offer this option, or `on` grants no level.
    func change(
        for service: ServiceDefinition, current: Authorization, app: App?
    ) -> (status: AuthorizationStatus, level: Level?)? {
        guard Self.options(for: service).contains(self) else { return nil }
        switch self {
        case .never, .noAccess, .off: return (.denied, nil)
        case .askNextTime: return (.notDetermined, nil)
        case .whileUsing: return (.authorized, .whenInUse)
        case .always: return (.authorized, .always)
        case .addOnly: return (.authorized, .addOnly)
        case .limited: return (.authorized, .limited)
        case .full: return (.authorized, .full)
        case .on:
            if current.status == .authorized, let level = current.level { return (.authorized, level) }
            return Self.onLevel(for: service, app: app).map { (.authorized, $0) }
        }
    }

    /// The option `authorization` shows as chosen, or nil when none does (not decided yet for
    /// a service without Ask Next Time, or restricted). As on iOS, a location grant that is
    /// Allow Once shows Ask Next Time, and a provisional Always (not confirmed by the upgrade
    /// prompt) shows While Using the App.
    static func current(_ authorization: Authorization, service: ServiceDefinition) -> ConsentSettingOption? {
        switch (service.id, authorization.status) {
        case (_, .restricted): return nil
        case (.location, .notDetermined): return .askNextTime
        case (_, .notDetermined): return nil
        case (.location, .denied): return .never
        case (.photos, .denied): return .noAccess
        case (_, .denied): return .off
        case (.location, .authorized):
            if authorization.once { return .askNextTime }
            return authorization.level == .always && !authorization.provisional ? .always : .whileUsing
        case (.photos, .authorized):
            return authorization.level.flatMap { ConsentSettingOption(rawValue: $0.rawValue) }
        case (_, .authorized): return .on
        }
    }
}
