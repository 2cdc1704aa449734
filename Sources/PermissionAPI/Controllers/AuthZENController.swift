import HTTPCore
import PermissionDomain
import PermissionWire

/// The AuthZEN Authorization API 1.0 (OpenID; SPEC §11): the status read asked as a decision.
/// `POST /access/v1/evaluation` answers one subject (the app), action (the service and least
/// level) and resource (the user); `POST /access/v1/evaluations` up to `maxEvaluations` of
/// them, in order, under `options.evaluations_semantic`; `GET /.well-known/authzen-configuration`
/// says where both are. A denial is `200` with `decision: false`. Both evaluations run like the
/// status read: keys and roles as for it, bodies read without Foundation, from one read
/// snapshot, inline on the event loop where the status read is.
struct AuthZENController {
    static let evaluationPath = "/access/v1/evaluation"
    static let evaluationsPath = "/access/v1/evaluations"
    static let configurationPath = "/.well-known/authzen-configuration"
    /// The most items one evaluations request may hold.
    static let maxEvaluations = 100

    let permissions: PermissionService
    /// `--public-url`, the policy decision point's identifier; empty to use the request's `Host`.
    let publicURL: String

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.postRead(Self.evaluationPath, access: .evaluate) { request in
            let body = try AccessEvaluationParser.single(try Self.jsonBody(request), limits: Self.limits(request))
            let query = try Self.query(
                subject: (body.subject, "/subject"), action: (body.action, "/action"),
                resource: (body.resource, "/resource"), principal: request.principal)
            let answers = try Self.evaluate([query], semantic: .executeAll, permissions)
            return Self.json(Self.wire(answers[0]).jsonBytes)
        }
        routes.postRead(Self.evaluationsPath, access: .evaluate) { request in
            try Self.evaluations(request, permissions)
        }
        let publicURL = publicURL
        routes.get(Self.configurationPath, access: .open) { request in
            try Self.configuration(request, publicURL: publicURL)
        }
    }

    /// `POST /access/v1/evaluations`: every item gets the top-level members it leaves out; the
    /// whole request is refused (400, 403) before anything is evaluated when any item is bad
    /// or names an app the key is not bound to. Without `evaluations`, or with none in it, it
    /// is one evaluation.
    private static func evaluations(_ request: APIRequest, _ permissions: PermissionService) throws -> HTTPResponse {
        let body = try AccessEvaluationParser.batch(try jsonBody(request), limits: limits(request))
        var semantic = EvaluationSemantic.executeAll
        if let name = body.options?.evaluationsSemantic {
            guard let chosen = EvaluationSemantic(rawValue: name) else {
                throw invalid(
                    "/options/evaluations_semantic",
                    "must be one of " + EvaluationSemantic.allCases.map(\.rawValue).joined(separator: ", "))
            }
            semantic = chosen
        }
        // AuthZEN 1.0 §7.1: without an evaluations array, or with an empty one, the request is
        // the single evaluation of its top-level members.
        guard let items = body.evaluations, !items.isEmpty else {
            let query = try query(
                subject: try required(body.subject, "/subject"), action: try required(body.action, "/action"),
                resource: try required(body.resource, "/resource"), principal: request.principal)
            return json(wire(try evaluate([query], semantic: .executeAll, permissions)[0]).jsonBytes)
        }
        guard items.count <= maxEvaluations else {
            throw invalid("/evaluations", "must hold at most \(maxEvaluations) items, not \(items.count)")
        }
        try checkDefaults(body, principal: request.principal, permissions)
        var queries: [AccessQuery] = []
        queries.reserveCapacity(items.count)
        var actionPaths: [String] = []
        actionPaths.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let path = "/evaluations/\(index)"
            let subject = try pick(item.subject, body.subject, path, "subject")
            let action = try pick(item.action, body.action, path, "action")
            let resource = try pick(item.resource, body.resource, path, "resource")
            queries.append(try query(subject: subject, action: action, resource: resource, principal: request.principal))
            actionPaths.append(action.1)
        }
        let answers = try evaluate(queries, semantic: semantic, permissions, actionPaths: actionPaths)
        return json(AccessEvaluationsResponse(evaluations: answers.map(wire)).jsonBytes)
    }

    /// The top-level defaults are checked whether or not an item uses them: a malformed one, a
    /// service or level the catalogue does not have (400) or another app than the key's (403)
    /// refuses the whole request, as it would in an item.
    private static func checkDefaults(
        _ body: AccessEvaluationsRequest, principal: Principal, _ permissions: PermissionService
    ) throws {
        if let subject = body.subject { _ = try app(of: (subject, "/subject"), principal: principal) }
        if let resource = body.resource { _ = try user(of: (resource, "/resource")) }
        guard let action = body.action else { return }
        let (service, level) = try serviceAndLevel(of: (action, "/action"))
        do {
            let definition = try permissions.service(service)
            if let level { try definition.requireLevel(level) }
        } catch PermissionError.notFound, PermissionError.unknownService {
            throw invalid("/action/name", "there is no service '\(service)' in the catalogue")
        } catch PermissionError.unknownLevel(let level, let service, let allowed) {
            throw invalid(
                "/action/name",
                "the service '\(service)' has no level '\(level)' (it has \(allowed.map(\.rawValue).joined(separator: ", ")))")
        }
    }

    /// The item's own member, else the top-level default, with the path it came from.
    private static func pick<T>(_ own: T?, _ fallback: T?, _ path: String, _ name: String) throws -> (T, String) {
        if let own { return (own, path + "/" + name) }
        if let fallback { return (fallback, "/" + name) }
        throw invalid(path + "/" + name, "required member is missing here and at the top level")
    }

    private static func required<T>(_ value: T?, _ path: String) throws -> (T, String) {
        guard let value else { throw invalid(path, "required member is missing") }
        return (value, path)
    }

    /// The query a subject, action and resource ask, each checked where it came from: the
    /// types `app` and `user`, well-formed ids, `service` or `service.level` well-formed (the
    /// catalogue is checked by the domain); an app key only for its own app (403).
    static func query(
        subject: (AccessEntity, String), action: (AccessAction, String), resource: (AccessEntity, String),
        principal: Principal
    ) throws -> AccessQuery {
        let app = try app(of: subject, principal: principal)
        let user = try user(of: resource)
        let (service, level) = try serviceAndLevel(of: action)
        return AccessQuery(user: user, app: app, service: service, level: level)
    }

    /// The app a subject names (type `app`, a well-formed bundle id); 403 for an app key bound
    /// to another app.
    private static func app(of subject: (AccessEntity, String), principal: Principal) throws -> AppID {
        guard subject.0.type == "app" else { throw invalid(subject.1 + "/type", "must be \"app\"") }
        let app = try field(subject.1 + "/id") { try AppID(subject.0.id) }
        if principal.role.map({ AccessMatrix.grant($0, .evaluate) }) == .ownApp, principal.boundApp != app {
            throw AccessControl.forbidden("\(subject.1.dropFirst())/id: this key is bound to another app.")
        }
        return app
    }

    /// The user a resource names (type `user`, a well-formed user id).
    private static func user(of resource: (AccessEntity, String)) throws -> UserID {
        guard resource.0.type == "user" else { throw invalid(resource.1 + "/type", "must be \"user\"") }
        return try field(resource.1 + "/id") { try UserID(resource.0.id) }
    }

    /// `service` or `service.level`, well-formed (the catalogue is checked by the domain).
    private static func serviceAndLevel(of action: (AccessAction, String)) throws -> (ServiceID, Level?) {
        let name = action.0.name
        let namePath = action.1 + "/name"
        guard let dot = name.utf8.firstIndex(of: UInt8(ascii: ".")) else {
            return (try field(namePath) { try ServiceID(name) }, nil)
        }
        let service = try field(namePath) { try ServiceID(String(name[..<dot])) }
        let level = try field(namePath) { try Level(String(name[name.index(after: dot)...])) }
        return (service, level)
    }

    /// Runs `build`, naming `path` in the 400 when the value is malformed.
    private static func field<T>(_ path: String, _ build: () throws -> T) throws -> T {
        do {
            return try build()
        } catch PermissionError.invalidArgument(_, let why) {
            throw invalid(path, why)
        }
    }

    /// The answers, with the domain's refusal of an item (a service or level not in the
    /// catalogue) as a 400 naming that item's `action/name`.
    private static func evaluate(
        _ queries: [AccessQuery], semantic: EvaluationSemantic, _ permissions: PermissionService,
        actionPaths: [String] = ["/action"]
    ) throws -> [AccessEvaluation] {
        do {
            return try permissions.evaluate(queries, semantic: semantic)
        } catch let refused as AccessQueryError {
            let path = actionPaths[min(refused.index, actionPaths.count - 1)] + "/name"
            switch refused.error {
            case .unknownService(let id):
                throw invalid(path, "there is no service '\(id)' in the catalogue")
            case .unknownLevel(let level, let service, let allowed):
                throw invalid(
                    path,
                    "the service '\(service)' has no level '\(level)' (it has \(allowed.map(\.rawValue).joined(separator: ", ")))"
                )
            default:
                throw refused.error
            }
        }
    }

    static func wire(_ answer: AccessEvaluation) -> AccessEvaluationResponse {
        let authorization = answer.authorization
        return AccessEvaluationResponse(
            decision: answer.decision,
            context: AccessDecisionContext(
                status: authorization.status.rawValue, reason: authorization.reason.rawValue,
                level: authorization.level?.rawValue, promptRequired: answer.promptRequired))
    }

    /// `GET /.well-known/authzen-configuration`: the URLs under `--public-url`; without it,
    /// under `http://` and the request's `Host` (checked by the parser), answered with
    /// `Cache-Control: no-store` so that no shared cache keeps a value a client chose.
    private static func configuration(_ request: APIRequest, publicURL: String) throws -> HTTPResponse {
        var headers = HTTPHeaders()
        let base: String
        if !publicURL.isEmpty {
            base = publicURL
        } else {
            guard let host = request.http.head.authority, Self.namesAHost(host) else {
                throw APIProblem(
                    .invalidRequest,
                    "The Host header field must name a host: the URLs are built from it when --public-url is not set.")
            }
            base = "http://" + host
            headers.add(name: "Cache-Control", value: "no-store")
        }
        return try Responses.json(AuthZENConfiguration(policyDecisionPoint: base), headers: headers)
    }

    /// Whether an authority (`host[:port]`, the parser checked its syntax) has a host before
    /// its port: an `http` URI must not have an empty one (RFC 9110 §4.2.1), so `Host: :80` is refused.
    static func namesAHost(_ authority: String) -> Bool {
        if authority.hasPrefix("[") { return true }  // an IP literal
        let host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return !host.isEmpty
    }

    /// The body, when `Content-Type` is JSON (415 otherwise, as for every body of the API).
    private static func jsonBody(_ request: APIRequest) throws -> [UInt8] {
        let contentType = request.headers["Content-Type"]
        guard contentType == Responses.json || APIRequest.isJSON(contentType) else {  // the common value without Foundation
            throw request.notJSON
        }
        return request.http.body
    }

    private static func limits(_ request: APIRequest) -> StrictJSON.Limits {
        StrictJSON.Limits(maxBytes: request.configuration.maxBodyBytes)
    }

    private static func invalid(_ path: String, _ why: String) -> WireDecodingError {
        WireDecodingError(kind: .invalidValue, path: path, message: why)
    }

    private static func json(_ bytes: [UInt8]) -> HTTPResponse {
        var headers = HTTPHeaders(minimumCapacity: 3)  // room for what middleware adds (X-Request-Id)
        headers.add(name: "Content-Type", value: Responses.json)
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(bytes))
    }
}
