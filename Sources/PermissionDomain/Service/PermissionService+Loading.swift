import Foundation

extension PermissionService {
    /// The service `id`: built in (`Catalogue`) or custom (the store).
    /// - Throws: `PermissionError.unknownService`.
    func resolveService(_ reader: any PermissionReader, _ id: ServiceID) throws -> ServiceDefinition {
        if let builtin = Catalogue.builtin(id) { return builtin }
        guard let custom = try reader.service(id) else { throw PermissionError.unknownService(id) }
        return custom
    }

    /// The effective view of `stored` at `now` (reads the matching policies and, for services
    /// with the Location Services switch, the user's settings).
    func effective(
        _ reader: any PermissionReader, stored: StoredAuthorization, service: ServiceDefinition, now: Date
    ) throws -> Authorization {
        var apps: [AppID: App?] = [:]
        return try effective(reader, stored: stored, service: service, now: now, apps: &apps)
    }

    /// ``effective(_:stored:service:now:)`` reading each app once across calls (a listing).
    func effective(
        _ reader: any PermissionReader, stored: StoredAuthorization, service: ServiceDefinition, now: Date,
        apps: inout [AppID: App?]
    ) throws -> Authorization {
        let policies = try reader.policies(service: stored.service, app: stored.app, user: stored.user)
        let settings =
            service.hasLocationServicesSwitch ? try reader.userSettings(stored.user) : nil
        let view = Rules.effective(stored: stored, service: service, policies: policies, settings: settings, now: now)
        return try flaggingPurpose(reader, view, stored: stored, service: service, apps: &apps)
    }

    /// `view` with `purposeChanged` set when it shows a grant given under a purpose string the
    /// app has since changed (``Rules/purposeChanged(stored:service:app:)``). Reads the app only
    /// for a view that shows a purpose (an authorized grant): the stores keep apps in memory
    /// beside the hot path's records (``ReadCache``).
    /// - Parameter apps: apps already read by the caller (a listing), filled as it goes.
    func flaggingPurpose(
        _ reader: any PermissionReader, _ view: Authorization, stored: StoredAuthorization, service: ServiceDefinition,
        apps: inout [AppID: App?]
    ) throws -> Authorization {
        guard view.status == .authorized, view.purpose != nil else { return view }
        let app: App?
        if let known = apps[stored.app] {
            app = known
        } else {
            app = try reader.app(stored.app)
            apps[stored.app] = .some(app)
        }
        return view.with(purposeChanged: Rules.purposeChanged(stored: stored, service: service, app: app))
    }

    /// ``flaggingPurpose(_:_:stored:service:apps:)`` for one view (the hot path: nothing to
    /// remember, so no map is built).
    func flaggingPurpose(
        _ reader: any PermissionReader, _ view: Authorization, stored: StoredAuthorization, service: ServiceDefinition
    ) throws -> Authorization {
        guard view.status == .authorized, view.purpose != nil else { return view }
        let app = try reader.app(stored.app)
        return view.with(purposeChanged: Rules.purposeChanged(stored: stored, service: service, app: app))
    }

    /// The service, stored record (initial when never written) and effective view of one
    /// authorization: the hot path, so the record and the user's settings come in one lookup.
    func load(
        _ reader: any PermissionReader, user: UserID, app: AppID, service id: ServiceID, now: Date
    ) throws -> LoadedAuthorization {
        try load(reader, user: user, app: app, service: resolveService(reader, id), now: now)
    }

    /// `load(_:user:app:service:now:)` for a service already resolved.
    func load(
        _ reader: any PermissionReader, user: UserID, app: AppID, service: ServiceDefinition, now: Date
    ) throws -> LoadedAuthorization {
        let id = service.id
        let withSettings = service.hasLocationServicesSwitch
        let (found, settings) = try reader.authorizationAndSettings(
            user: user, app: app, service: id, withSettings: withSettings)
        let stored = found ?? .initial(user: user, app: app, service: id)
        let policies = try reader.policies(service: id, app: app, user: user)
        let view = Rules.effective(stored: stored, service: service, policies: policies, settings: settings, now: now)
        return LoadedAuthorization(
            service: service, stored: stored, effective: try flaggingPurpose(reader, view, stored: stored, service: service))
    }
}
