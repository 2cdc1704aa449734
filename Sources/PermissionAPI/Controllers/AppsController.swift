import HTTPCore
import PermissionDomain

/// Registered apps and their purpose strings (SPEC §4 Apps).
struct AppsController {
    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.get("/v1/apps", access: .readCatalogue, execution: .worker) { request in
            let query = try QueryParameters(request.http)
            let after = try query.value("after") { try AppID($0) }  // a position (Cursor)
            let limit = try query.limit(
                default: request.configuration.defaultPageLimit, maximum: request.configuration.maxPageLimit)
            let rows = try permissions.apps(after: after, limit: limit + 1)
            let items = Array(rows.prefix(limit))
            let next = rows.count > limit ? items.last?.id.rawValue : nil
            return try Responses.json(Wire.AppList(items: items.map(WireMapping.app), nextCursor: next))
        }
        routes.get("/v1/apps/{app}", access: .readCatalogue) { request in
            try Responses.json(WireMapping.app(permissions.app(request.app())))
        }
        routes.put("/v1/apps/{app}", access: .admin, conditional: true) { request in
            let id = try request.app()
            let body = try request.decode(Wire.AppRegistration.self)
            let condition = try EntityTags.existence(request.headers)  // after the body, as for policies
            var purposes: [String: PurposeString] = [:]
            for (key, text) in body.purposeStrings {
                do {
                    purposes[key] = try PurposeString(text)
                } catch {
                    throw PermissionError.invalidArgument(
                        field: "purposeStrings/\(key)", why: PurposeString.rule)
                }
            }
            let localized = try Self.localizedPurposeStrings(body.localizedPurposeStrings ?? [:])
            let language = try body.developmentLanguage.map { try LanguageTag($0, field: "developmentLanguage") }
            let put = try permissions.upsertApp(
                id: id, name: body.name, purposeStrings: purposes, localizedPurposeStrings: localized,
                developmentLanguage: language, version: body.version, condition: condition, actor: request.actor,
                requestId: request.requestId)
            var app = WireMapping.app(put.value)
            if body.reconsent == true {
                do {
                    app.reconsented = try permissions.reconsent(app: id, actor: request.actor, requestId: request.requestId)
                } catch PermissionError.unavailable(let why, let cause) where !PermissionError.mayHaveChanged(why) {
                    // The registration above is saved: not "nothing changed, retry after" (Retry-After).
                    throw PermissionError.unavailable(
                        why: PermissionError.reconsentUnfinished, cause: [why, cause].compactMap { $0 }.joined(separator: ": "))
                }
            }
            return try Responses.put(app, created: put.created, location: "/v1/apps/\(id)")
        }
        // The reverse query of re-consent (SPEC §11): the app's grants given under a purpose
        // string it has since changed, keyset-paged by `<user>/<service>`.
        routes.get("/v1/apps/{app}/purpose-changed", access: .listAuthorizations, execution: .worker) { request in
            let app = try request.app()
            let query = try QueryParameters(request.http)
            let after = try query.string("after").map { try Cursor.position(app: app, userAndService: $0) }
            let limit = try query.limit(
                default: request.configuration.defaultPageLimit, maximum: request.configuration.maxPageLimit)
            let page = try permissions.purposeChangedGrants(app: app, after: after, limit: limit)
            return try Responses.json(
                Wire.AuthorizationList(
                    items: page.items.map(WireMapping.authorization), nextCursor: page.nextAfter.map(Cursor.userAndService)))
        }
    }

    /// The translations of a registration, validated member by member (SPEC §11): each
    /// language tag (two spellings of one tag are refused) and each text, the error naming the
    /// member (`localizedPurposeStrings/de/NSCameraUsageDescription`).
    /// - Throws: `PermissionError.invalidArgument`.
    static func localizedPurposeStrings(_ body: [String: [String: String]]) throws -> [LanguageTag: [String: PurposeString]] {
        guard body.count <= App.maxLanguages else {
            throw PermissionError.invalidArgument(field: "localizedPurposeStrings", why: "at most \(App.maxLanguages) languages")
        }
        var result: [LanguageTag: [String: PurposeString]] = [:]
        for (raw, strings) in body.sorted(by: { $0.key < $1.key }) {
            let language = try LanguageTag(raw, field: "localizedPurposeStrings/\(raw)")
            guard result[language] == nil else {
                throw PermissionError.invalidArgument(
                    field: "localizedPurposeStrings/\(raw)", why: "names the same language as another member (\(language))")
            }
            var texts: [String: PurposeString] = [:]
            for (key, text) in strings {
                do {
                    texts[key] = try PurposeString(text)
                } catch {
                    throw PermissionError.invalidArgument(
                        field: "localizedPurposeStrings/\(raw)/\(key)", why: PurposeString.rule
                    )
                }
            }
            result[language] = texts
        }
        return result
    }
}
