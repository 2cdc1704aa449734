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
        let policies = try reader.policies(service: stored.service, app: stored.app, user: stored.user)
        let settings =
            service.hasLocationServicesSwitch ? try reader.userSettings(stored.user) : nil
        return Rules.effective(stored: stored, service: service, policies: policies, settings: settings, now: now)
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
        return LoadedAuthorization(
            service: service, stored: stored,
            effective: Rules.effective(stored: stored, service: service, policies: policies, settings: settings, now: now))
    }
}
