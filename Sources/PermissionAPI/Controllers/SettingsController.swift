import HTTPCore
import PermissionDomain

/// A user's device-wide settings: the Location Services switch (SPEC §4) and their language
/// (SPEC §11). A `PUT` replaces both (a missing `locale` clears it).
struct SettingsController {
    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.get("/v1/users/{user}/settings", access: .readSettings) { request in
            try Responses.json(WireMapping.settings(permissions.userSettings(request.user())))
        }
        routes.put("/v1/users/{user}/settings", access: .writeSettings, conditional: true) { request in
            let user = try request.user()
            let body = try request.decode(Wire.UserSettings.self)
            var locale: LanguageTag?
            if let raw = body.locale { locale = try LanguageTag(raw, field: "locale") }
            // Every user has settings (the defaults until set), so `If-None-Match: *` never holds;
            // checked after the body, which a refusal of its own would answer first.
            if try EntityTags.existence(request.headers)?.mustNotExist == true {
                throw PermissionError.existenceConditionFailed(what: "settings of \(user)", exists: true)
            }
            let settings = try permissions.putSettings(
                user: user, locationServicesEnabled: body.locationServicesEnabled, locale: locale,
                actor: request.actor, requestId: request.requestId)
            return try Responses.json(WireMapping.settings(settings))
        }
    }
}
