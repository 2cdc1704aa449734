import HTTPCore

/// The router as controllers see it: each route declares its `RouteAccess`; before any
/// handler runs, the `Authenticator` resolves the principal (401) and `AccessControl` checks
/// the right (403), so every handler gets an `APIRequest` of an allowed caller. Bodies
/// over `maxBodyBytes` are refused (413) before any handler runs, and every non-GET request
/// wakes the event streams when it ends, so that committed changes reach them at once.
struct APIRoutes {
    typealias Handler = @Sendable (APIRequest) throws -> HTTPResponse

    private(set) var router = Router()
    let authenticator: any Authenticator
    let configuration: APIConfiguration
    let broadcaster: ChangeBroadcaster

    init(authenticator: any Authenticator, configuration: APIConfiguration, broadcaster: ChangeBroadcaster) {
        self.authenticator = authenticator
        self.configuration = configuration
        self.broadcaster = broadcaster
    }

    /// Registers `handler` for `method` requests matching `template`.
    /// - Parameter execution: where the handler runs (see `HTTPExecution`): by default reads
    ///   inline on the event loop and writes on the worker queue; a read that may take long (a
    ///   scan, a count, a database probe) passes `.worker`.
    mutating func on(
        _ method: HTTPMethod, _ template: String, access: RouteAccess, execution: HTTPExecution? = nil,
        _ handler: @escaping Handler
    ) {
        let authenticator = authenticator
        let configuration = configuration
        let broadcaster = broadcaster
        let writes = method != .get
        router.on(method, template, execution: execution) { request, context in
            var principal = Principal.anonymous
            if access != .open {
                principal = try authenticator.authenticate(request, context: context)
                try AccessControl.authorize(principal, for: access, context: context)
            }
            let api = APIRequest(http: request, context: context, principal: principal, configuration: configuration)
            try api.checkBodySize()
            guard writes else { return try handler(api) }
            defer { broadcaster.notify() }
            return try handler(api)
        }
    }

    mutating func get(
        _ template: String, access: RouteAccess, execution: HTTPExecution? = nil, _ handler: @escaping Handler
    ) {
        on(.get, template, access: access, execution: execution, handler)
    }

    mutating func put(_ template: String, access: RouteAccess, _ handler: @escaping Handler) {
        on(.put, template, access: access, handler)
    }

    mutating func post(_ template: String, access: RouteAccess, _ handler: @escaping Handler) {
        on(.post, template, access: access, handler)
    }

    mutating func delete(_ template: String, access: RouteAccess, _ handler: @escaping Handler) {
        on(.delete, template, access: access, handler)
    }
}
