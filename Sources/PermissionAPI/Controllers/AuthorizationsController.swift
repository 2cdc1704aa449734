import HTTPCore
import PermissionDomain

/// One authorization (SPEC §3-§4): read it (the hot path, with `ETag` and `If-None-Match`),
/// change it in settings and revoke it (with `If-Match`), and request access.
struct AuthorizationsController {
    static let path = "/v1/users/{user}/apps/{app}/authorizations/{service}"

    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        let store = permissions.store
        let inMemory: @Sendable (RequestContext) -> Bool = { context in
            guard let user = context.parameters["user"].flatMap({ try? UserID($0) }),
                let app = context.parameters["app"].flatMap({ try? AppID($0) }),
                let service = context.parameters["service"].flatMap({ try? ServiceID($0) })
            else { return true }  // refused with 400 without a read
            return store.answersFromMemory(user: user, app: app, service: service)
        }
        routes.get(Self.path, access: .readAuthorization, inMemory: inMemory, conditional: true) { request in
            try Self.read(request, permissions)
        }
        routes.put(Self.path, access: .setAuthorization, submits: true, conditional: true) { request in
            try Self.set(request, permissions)
        }
        routes.post(Self.path + "/revoke", access: .setAuthorization, submits: true, conditional: true) { request in
            try Self.revoke(request, permissions)
        }
        routes.post(Self.path + "/request", access: .requestAccess) { request in
            try Self.request(request, permissions)
        }
        routes.post(Self.path + "/button", access: .requestAccess) { request in
            try Self.pressButton(request, permissions)
        }
        registerListings(on: &routes)
    }

    /// `GET`: 200 with the effective authorization and its `ETag`, 412 when `If-Match` does
    /// not name it (strong comparison, evaluated first: RFC 9110 §13.1.1, §13.2.2), or 304 when
    /// `If-None-Match` names it (§13.1.2). Any well-formed ids.
    private static func read(_ request: APIRequest, _ permissions: PermissionService) throws -> HTTPResponse {
        let authorization = try permissions.authorization(
            user: request.user(), app: request.app(), service: request.service())
        if let ifMatch = try EntityTags.ifMatch(request.headers), !ifMatch.isSatisfied(by: authorization.etag) {
            throw APIProblem(
                .preconditionFailed, "If-Match does not name the authorization's current entity-tag \(authorization.etag).")
        }
        if try EntityTags.noneMatchHits(request.headers, etag: authorization.etag) {
            return Responses.notModified(etag: authorization.etag)
        }
        return Responses.authorization(authorization)
    }

    /// `PUT` (SPEC §4 Settings): authorized with a level (and maybe `until`, SPEC §11),
    /// denied, or notDetermined (Ask Next Time); 409 when restricted, 412 when `If-Match` is
    /// stale, 422 for an `until` in the past, beyond the horizon or with another status.
    private static func set(_ request: APIRequest, _ permissions: PermissionService) throws -> HTTPResponse {
        let user = try request.user()
        let app = try request.app()
        let service = try request.service()
        let change = try request.decode(Wire.SettingsChange.self)
        let level = try change.level.map { try Level($0) }
        let status = WireMapping.status(change.status)
        let ifMatch = try EntityTags.ifMatch(request.headers)
        let ifNoneMatch = try EntityTags.ifNoneMatch(request.headers)
        return try Self.authorization {
            permissions.setAuthorization(
                user: user, app: app, service: service, status: status, level: level, until: change.until,
                ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, actor: request.actor, requestId: request.requestId,
                completion: $0)
        } otherwise: {
            try permissions.setAuthorization(
                user: user, app: app, service: service, status: status, level: level, until: change.until,
                ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, actor: request.actor, requestId: request.requestId)
        }
    }

    /// `POST .../revoke` (SPEC §4 Revoke): 200 with the denied authorization; submitted to the
    /// store's writer like `set`.
    private static func revoke(_ request: APIRequest, _ permissions: PermissionService) throws -> HTTPResponse {
        let user = try request.user()
        let app = try request.app()
        let service = try request.service()
        let ifMatch = try EntityTags.ifMatch(request.headers)
        let ifNoneMatch = try EntityTags.ifNoneMatch(request.headers)
        return try Self.authorization {
            permissions.revoke(
                user: user, app: app, service: service, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, actor: request.actor,
                requestId: request.requestId, completion: $0)
        } otherwise: {
            try permissions.revoke(
                user: user, app: app, service: service, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, actor: request.actor,
                requestId: request.requestId)
        }
    }

    /// A change's answer: answered when the store's writer has committed it, without a thread
    /// waiting, where the store takes submitted writes (`submit` returns true; see
    /// `APIRoutes.decideSubmitted`), else from the blocking form.
    private static func authorization(
        submit: (@escaping @Sendable (Result<PermissionDomain.Authorization, any Error>) -> Void) -> Bool,
        otherwise blocking: () throws -> PermissionDomain.Authorization
    ) throws -> HTTPResponse {
        let deferred = HTTPDeferredResponse()
        if submit({ result in deferred.complete(result.map { Responses.authorization($0) }) }) {
            return .deferred(deferred)
        }
        return Responses.authorization(try blocking())
    }

    /// `POST .../request` (SPEC §4 Request): 200 without a prompt, or 202 with the pending
    /// prompt and its `Location`; 422 when a purpose string is missing.
    private static func request(_ request: APIRequest, _ permissions: PermissionService) throws -> HTTPResponse {
        let user = try request.user()
        let app = try request.app()
        let service = try request.service()
        let body = try request.decode(Wire.AccessRequest.self)
        let outcome = try permissions.request(
            user: user, app: app, service: service, level: try Level(body.level), actor: request.actor,
            requestId: request.requestId)
        let authorization = outcome.authorization
        var headers: HTTPHeaders = ["ETag": authorization.etag]
        guard let prompt = outcome.prompt else {
            return try Responses.json(
                Wire.RequestOutcome(authorization: WireMapping.authorization(authorization)), headers: headers)
        }
        headers.add(name: "Location", value: "/v1/prompts/" + prompt.id.rawValue)
        return try Responses.json(
            Wire.RequestOutcome(
                authorization: WireMapping.authorization(authorization), prompt: WireMapping.prompt(prompt)),
            status: .accepted, headers: headers)
    }

    /// `POST .../location/button` (SPEC §11, HIG "Location button"): 200 with `granted` (Allow
    /// Once, no prompt) or `unchanged` and why, or 202 with the button's pending prompt and its
    /// `Location`; 404 for a service without the button, 422 when the While Using purpose string
    /// is missing, 429 `too-many-prompts` when the app has the most pending prompts for the user.
    private static func pressButton(_ request: APIRequest, _ permissions: PermissionService) throws -> HTTPResponse {
        let user = try request.user()
        let app = try request.app()
        let service = try request.service()
        let outcome = try permissions.pressLocationButton(
            user: user, app: app, service: service, actor: request.actor, requestId: request.requestId)
        let authorization = WireMapping.authorization(outcome.authorization)
        var headers: HTTPHeaders = ["ETag": outcome.authorization.etag]
        switch outcome {
        case .granted:
            return try Responses.json(
                Wire.LocationButtonResult(outcome: .granted, authorization: authorization), headers: headers)
        case .unchanged(let standing, _):
            let why = Wire.LocationButtonResult.Standing(rawValue: standing.rawValue) ?? .denied
            return try Responses.json(
                Wire.LocationButtonResult(outcome: .unchanged, why: why, authorization: authorization), headers: headers)
        case .prompted(let prompt, _):
            headers.add(name: "Location", value: "/v1/prompts/" + prompt.id.rawValue)
            return try Responses.json(
                Wire.LocationButtonResult(outcome: .prompted, authorization: authorization, prompt: WireMapping.prompt(prompt)),
                status: .accepted, headers: headers)
        }
    }
}
