import HTTPCore
import PermissionDomain

/// Settings › Privacy: the page, the Location Services switch and one app's entry. A change
/// is the same call as `PUT /v1/users/{user}/settings` or `PUT .../authorizations/{service}`,
/// refused as those are (a restricted entry 409), shown as an error on the page.
extension ConsentController {
    /// Most entries the settings page lists.
    static let maxSettingsEntries = 1000

    func registerSettings(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.page(.get, "/consent/settings", access: .readSettings, sessions: sessions) { request, _, visit in
            try Self.settingsPage(request, visit, permissions, flash: Self.flash(request)).response
        }
        routes.page(.post, "/consent/settings/location-services", access: .writeSettings, sessions: sessions) {
            request, context, visit in
            let form = try ConsentForm.checked(request, visit: visit)
            let enabled: Bool
            switch form.value("enabled") {
            case "true": enabled = true
            case "false": enabled = false
            default:
                return try Self.settingsPage(request, visit, permissions, flash: .error(.errorInvalidSwitch), status: .badRequest)
                    .response
            }
            _ = try permissions.setLocationServices(
                user: visit.user, enabled: enabled, actor: visit.session.actor, requestId: context.requestId)
            let done: ConsentFlash.Done = enabled ? .locationOn : .locationOff
            return Self.redirect("/consent/settings?done=\(done.rawValue)")
        }
        routes.page(.post, "/consent/settings/{service}/{app}", access: .setAuthorization, sessions: sessions) {
            request, context, visit in
            let form = try ConsentForm.checked(request, visit: visit)
            // Only an entry the page lists: a service and app the user has a record of.
            guard let service = context.parameters["service"].flatMap({ try? ServiceID($0) }),
                let app = context.parameters["app"].flatMap({ try? AppID($0) })
            else { throw ConsentPageError.notFound }
            let entry: ConsentSettingsPage.Entry
            var names = ConsentApps()
            do {
                entry = try Self.entry(
                    user: visit.user, app: app, definition: try permissions.service(service), permissions, names: &names)
            } catch PermissionError.unknownService {
                throw ConsentPageError.notFound
            }
            guard entry.authorization.version > 0 else { throw ConsentPageError.notFound }
            let refused = { (status: HTTPStatus, key: ConsentText.Key) throws -> HTTPResponse in
                let page = try Self.settingsPage(request, visit, permissions, flash: .error(key), status: status)
                return page.response
            }
            // What the page offers only: a managed entry is shown disabled (a policy decides it,
            // whatever the user's own choice), an option the entry does not show is refused.
            if entry.managed { return try refused(.conflict, .errorRestricted) }
            guard let option = form.value("value").flatMap(ConsentSettingOption.init(rawValue:)),
                entry.options.contains(option),
                let change = option.change(for: entry.service, current: entry.authorization, app: entry.app)
            else { return try refused(.badRequest, .errorInvalidSetting) }
            // The option shown as the entry's state changes nothing, as tapping the selected row
            // in iOS Settings: saving it as a change would end a provisional Always, an Allow Once
            // or an expiring grant's end, and drop the purpose the user was shown.
            if option == ConsentSettingOption.current(entry.authorization, service: entry.service) {
                return Self.redirect("/consent/settings?done=\(ConsentFlash.Done.saved.rawValue)")
            }
            do {
                _ = try permissions.setAuthorization(
                    user: visit.user, app: app, service: service, status: change.status, level: change.level,
                    actor: visit.session.actor, requestId: context.requestId)
            } catch PermissionError.restrictedByPolicy, PermissionError.grantedByPolicy {
                return try refused(.conflict, .errorRestricted)
            } catch PermissionError.invalidArgument, PermissionError.invalidCombination, PermissionError.unknownLevel,
                PermissionError.missingPurposeString
            {
                return try refused(.badRequest, .errorInvalidSetting)
            }
            return Self.redirect("/consent/settings?done=\(ConsentFlash.Done.saved.rawValue)")
        }
    }

    /// The settings page of the session's user.
    static func settingsPage(
        _ request: HTTPRequest, _ visit: ConsentVisit, _ permissions: PermissionService, flash: ConsentFlash?,
        status: HTTPStatus = .ok
    ) throws -> ConsentPage {
        let settings = try permissions.userSettings(visit.user)
        return ConsentSettingsPage.page(
            entries: try settingsEntries(visit.user, permissions), locationServicesEnabled: settings.locationServicesEnabled,
            visit: visit, language: ConsentLanguage.of(request.headers), flash: flash, status: status)
    }

    /// The entry of `app` for `definition`'s service, from its effective `authorization` (read
    /// when nil): with Location Services off it shows the choice kept for when they are on.
    static func entry(
        user: UserID, app: AppID, definition: ServiceDefinition, _ permissions: PermissionService,
        names: inout ConsentApps, _ authorization: Authorization? = nil
    ) throws -> ConsentSettingsPage.Entry {
        var shown = try authorization ?? permissions.authorization(user: user, app: app, service: definition.id)
        if shown.reason == .servicesDisabled {
            shown = try permissions.authorizationWithLocationServicesOn(user: user, app: app, service: definition.id)
        }
        return ConsentSettingsPage.Entry(
            service: definition, appName: try names.name(of: app, permissions), authorization: shown,
            app: try names.registration(of: app, permissions))
    }

    /// Every authorization record of `user` (at most ``maxSettingsEntries``), as entries in
    /// the catalogue's order of services (custom services after, by id), apps by name.
    static func settingsEntries(_ user: UserID, _ permissions: PermissionService) throws -> [ConsentSettingsPage.Entry] {
        var authorizations: [Authorization] = []
        var after: AuthorizationKey?
        repeat {
            let page = try permissions.authorizations(
                matching: AuthorizationFilter(user: user), after: after, limit: 200)
            authorizations += page.items
            after = page.nextAfter
        } while after != nil && authorizations.count < maxSettingsEntries
        var services: [ServiceID: ServiceDefinition] = [:]
        var names = ConsentApps()
        var entries: [ConsentSettingsPage.Entry] = []
        for authorization in authorizations.prefix(maxSettingsEntries) {
            let definition: ServiceDefinition
            if let known = services[authorization.service] {
                definition = known
            } else {
                definition = try permissions.service(authorization.service)
                services[authorization.service] = definition
            }
            entries.append(
                try entry(user: user, app: authorization.app, definition: definition, permissions, names: &names, authorization))
        }
        let rank = Dictionary(uniqueKeysWithValues: Catalogue.builtins.enumerated().map { ($1.id, $0) })
        return entries.sorted { left, right in
            let l = rank[left.service.id] ?? Int.max, r = rank[right.service.id] ?? Int.max
            if l != r { return l < r }
            if left.service.id != right.service.id { return left.service.id.rawValue < right.service.id.rawValue }
            if left.appName != right.appName { return left.appName < right.appName }
            return left.authorization.app.rawValue < right.authorization.app.rawValue
        }
    }
}
