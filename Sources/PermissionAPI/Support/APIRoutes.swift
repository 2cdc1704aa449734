import HTTPCore
import PermissionDomain

/// The router as controllers see it: each route declares its `RouteAccess`; before any
/// handler runs, a request with more than one `Authorization` or `Permission-Consistency` field
/// is refused (400, ``refuseRepeatedFields(_:)``), the `Authenticator` resolves the principal
/// (401) and `AccessControl` checks the right (403), so every handler gets an `APIRequest` of an
/// allowed caller. Bodies
/// over `maxBodyBytes` are refused (413) before any handler runs, and every non-GET request
/// wakes the event streams when it ends, so that committed changes reach them at once.
///
/// Revisions (``Consistency``): a successful write answers `Permission-Revision`; a read with
/// `Permission-Consistency` waits for its revision first. Where a read runs: on the event loop
/// when it cannot wait (a store on a local file, nothing to wait for); on a store whose reads
/// may wait on the network, only the reads that say they are answered from memory
/// (`inMemory`) and whose key is verified without the store stay on the loop. Memory may lose
/// the answer before the read runs (another replica's write): the store's read then throws
/// `ReadMustWait` instead of waiting on the loop, and the request runs again from the start on
/// a worker thread (`RequestContext.offload`).
struct APIRoutes {
    typealias Handler = @Sendable (APIRequest) throws -> HTTPResponse

    var router = Router()
    let authenticator: any Authenticator
    let configuration: APIConfiguration
    let broadcaster: ChangeBroadcaster
    /// nil for a router without the store's routes (the separate metrics listener).
    let store: (any PermissionStore)?
    /// The API keys, when `authenticator` is them: asked whether a request's key is verified
    /// from memory.
    let keys: KeyAuthenticator?

    init(
        authenticator: any Authenticator, configuration: APIConfiguration, broadcaster: ChangeBroadcaster,
        store: (any PermissionStore)?
    ) {
        self.authenticator = authenticator
        self.configuration = configuration
        self.broadcaster = broadcaster
        self.store = store
        keys = authenticator as? KeyAuthenticator
    }

    /// Registers `handler` for `method` requests matching `template`.
    /// - Parameter execution: where the handler runs (see `HTTPExecution`): by default reads
    ///   inline on the event loop and writes on a worker thread; a read that may take long (a
    ///   scan, a count, a database probe) passes `.worker`.
    /// - Parameter inMemory: for a read the store may answer from memory: whether it would now,
    ///   asked with the route's parameters in the context (see the type's summary).
    /// - Parameter reads: for a `POST` that only reads (an AuthZEN evaluation, whose question
    ///   is its body): it runs and honours `Permission-Consistency` like a `GET`, inline on the
    ///   event loop by default, and answers no `Permission-Revision`.
    /// - Parameter submits: for a write whose handler may answer with an `HTTPDeferredResponse`
    ///   (a change handed to a ``SubmittingPermissionStore``): it then runs on the event loop when
    ///   the key is verified from memory (`decideSubmitted`), and its `Permission-Revision` and
    ///   the change feed's wake-up follow the commit.
    mutating func on(
        _ method: HTTPMethod, _ template: String, access: RouteAccess, execution: HTTPExecution? = nil,
        reads: Bool = false, inMemory: (@Sendable (RequestContext) -> Bool)? = nil, submits: Bool = false,
        _ handler: @escaping Handler
    ) {
        let authenticator = authenticator
        let configuration = configuration
        let broadcaster = broadcaster
        let store = store
        let writes = method != .get && !reads
        let decide: (@Sendable (HTTPRequestHead, RequestContext) -> HTTPExecution)?
        if writes {
            decide =
                submits && store is any SubmittingPermissionStore
                ? Self.decideSubmitted(store: store, keys: keys, access: access) : nil
        } else if execution == .worker {
            decide = nil
        } else {
            decide = store.flatMap { Self.decide(store: $0, keys: keys, access: access, inMemory: inMemory) }
        }
        let execution = execution ?? (reads ? .eventLoop : nil)
        let respond: @Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse = { request, context in
            try Self.refuseRepeatedFields(request.headers)
            var principal = Principal.anonymous
            if access != .open {
                principal = try authenticator.authenticate(request, context: context)
                try AccessControl.authorize(principal, for: access, context: context)
            }
            let api = APIRequest(http: request, context: context, principal: principal, configuration: configuration)
            try api.checkBodySize()
            // A write waits for the revision too: its rules read this replica's memory before
            // the write itself (an app's request decides there whether to prompt), which must
            // show what the client already saw acknowledged elsewhere.
            if let store, let revision = try Consistency.requiredRevision(request.headers) {
                try Consistency.await(revision, store: store)
                // The revision may revoke the key itself, which the key verified above from memory
                // did not show. A store whose memory follows the log (PostgreSQL) forgets the keys
                // it verified before it shows a revision that changed them, so a second look finds
                // the change there; on one whose revisions are the database's own (SQLite), another
                // process's revocation shows before this one hears of it, so the key is read again.
                if access != .open {
                    _ =
                        try store.readsMayWait
                        ? authenticator.authenticate(request, context: context)
                        : authenticator.authenticateFromStore(request, context: context)
                }
            }
            guard writes else { return try handler(api) }
            let response: HTTPResponse
            do {
                response = try handler(api)
            } catch {
                broadcaster.notify()
                throw error
            }
            guard let deferred = response.deferred else {
                defer { broadcaster.notify() }
                return Self.acknowledged(response, store: store)
            }
            // A submitted write (see `decideSubmitted`): the same once it is committed.
            deferred.transform { outcome in
                defer { broadcaster.notify() }
                return outcome.map { Self.acknowledged($0, store: store) }
            }
            return response
        }
        router.on(method, template, execution: execution, decide: decide) { request, context in
            do {
                return try respond(request, context)
            } catch is ReadMustWait {
                // Sent to the event loop for an answer in memory that went before the read ran
                // (another replica's write, a stale read model): from the start on a worker.
                return try context.offload { try respond(request, context) }
            }
        }
    }

    /// Refuses a request that sends `Authorization`, `Content-Type` or `Permission-Consistency`
    /// more than once (400 `invalid-request` naming the field). None is a list (RFC 9110
    /// §11.6.2: one set of credentials; §8.3: one media type), so which one counts would be up
    /// to whoever reads the request: the key this server verifies (the first) could be another
    /// than the one a proxy in front of it checked or logged (often the last), and a body this
    /// server reads as JSON another may have read as text.
    /// On every request, the status read's included: one length read a field, and a compare
    /// only for the fields of the three names' lengths.
    static func refuseRepeatedFields(_ headers: HTTPHeaders) throws {
        var authorization = 0
        var contentType = 0
        var consistency = 0
        for field in headers.fields {
            switch field.name.utf8.count {
            case authorizationLength where field.name.equalsIgnoringASCIICase("Authorization"): authorization += 1
            case contentTypeLength where field.name.equalsIgnoringASCIICase("Content-Type"): contentType += 1
            case consistencyLength where field.name.equalsIgnoringASCIICase(Consistency.consistencyField): consistency += 1
            default: continue
            }
        }
        if authorization > 1 { throw repeated("Authorization", authorization) }
        if contentType > 1 { throw repeated("Content-Type", contentType) }
        if consistency > 1 { throw repeated(Consistency.consistencyField, consistency) }
    }

    private static let authorizationLength = "Authorization".utf8.count
    private static let contentTypeLength = "Content-Type".utf8.count
    private static let consistencyLength = Consistency.consistencyField.utf8.count

    private static func repeated(_ name: String, _ count: Int) -> APIProblem {
        APIProblem.invalidParameter(name, "the request has \(count) \(name) fields; send one")
    }

    /// A write's response with the revision that shows it (`Permission-Revision`) when it succeeded.
    private static func acknowledged(_ response: HTTPResponse, store: (any PermissionStore)?) -> HTTPResponse {
        guard (200..<300).contains(response.status.code), let revision = try? store?.acknowledgedRevision() else {
            return response
        }
        var response = response
        response.headers.replaceOrAdd(name: Consistency.revisionField, value: String(revision))
        return response
    }

    /// Where a write that its store can complete without a waiting thread (`submits`, on a
    /// ``SubmittingPermissionStore``) runs: on the event loop, which only parses, checks and
    /// hands the change to the store's writer, and answers when the writer's completion comes
    /// (an `HTTPDeferredResponse`); on a worker when the key is not verified from memory
    /// (verifying it reads the database).
    private static func decideSubmitted(
        store: (any PermissionStore)?, keys: KeyAuthenticator?, access: RouteAccess
    ) -> @Sendable (HTTPRequestHead, RequestContext) -> HTTPExecution {
        { head, context in
            if let store, store.readsMayWait, Consistency.mustWait(head, store: store) { return .worker }
            return access == .open || keys?.verifiesFromMemory(head, context: context) == true ? .eventLoop : .worker
        }
    }

    /// Where a read runs, per request (see the type's summary); nil (the route's fixed place, no
    /// per-request work) for a store whose reads never wait. Such a store never has to wait for a
    /// revision either: it shows every commit when it returns, so a revision it does not show
    /// was never made (412 at once, ``Consistency``).
    private static func decide(
        store: any PermissionStore, keys: KeyAuthenticator?, access: RouteAccess,
        inMemory: (@Sendable (RequestContext) -> Bool)?
    ) -> (@Sendable (HTTPRequestHead, RequestContext) -> HTTPExecution)? {
        guard store.readsMayWait else { return nil }
        return { head, context in
            if Consistency.mustWait(head, store: store) { return .worker }
            guard let inMemory else { return .worker }
            if access != .open && keys?.verifiesFromMemory(head, context: context) != true { return .worker }
            return inMemory(context) ? .eventLoop : .worker
        }
    }

    /// The reads (and their `HEAD`). `conditional`: the handler evaluates `If-Match` against
    /// the resource's entity-tag itself (an authorization); otherwise the resource has none and
    /// ``EntityTags/refuseTags(_:)`` runs first (RFC 9110 §13.1.1 holds for every method).
    mutating func get(
        _ template: String, access: RouteAccess, execution: HTTPExecution? = nil,
        inMemory: (@Sendable (RequestContext) -> Bool)? = nil, conditional: Bool = false, _ handler: @escaping Handler
    ) {
        on(
            .get, template, access: access, execution: execution, inMemory: inMemory,
            conditional ? handler : Self.withoutEntityTags(handler))
    }

    /// A `POST` that only reads (see `on(_:_:access:execution:reads:inMemory:_:)`).
    mutating func postRead(_ template: String, access: RouteAccess, _ handler: @escaping Handler) {
        on(.post, template, access: access, reads: true, Self.withoutEntityTags(handler))
    }

    /// The writes. `conditional`: the handler evaluates `If-Match` and `If-None-Match` itself
    /// (an authorization's entity-tags, or `*` on a resource that may not exist); otherwise
    /// the target has no entity-tags and ``EntityTags/refuseTags(_:)`` runs first.
    mutating func put(
        _ template: String, access: RouteAccess, submits: Bool = false, conditional: Bool = false,
        _ handler: @escaping Handler
    ) {
        on(.put, template, access: access, submits: submits, conditional ? handler : Self.withoutEntityTags(handler))
    }

    mutating func post(
        _ template: String, access: RouteAccess, submits: Bool = false, conditional: Bool = false,
        _ handler: @escaping Handler
    ) {
        on(.post, template, access: access, submits: submits, conditional ? handler : Self.withoutEntityTags(handler))
    }

    mutating func delete(_ template: String, access: RouteAccess, conditional: Bool = false, _ handler: @escaping Handler) {
        on(.delete, template, access: access, conditional ? handler : Self.withoutEntityTags(handler))
    }

    /// `handler` after ``EntityTags/refuseTags(_:)``.
    private static func withoutEntityTags(_ handler: @escaping Handler) -> Handler {
        { request in
            try EntityTags.refuseTags(request.headers)
            return try handler(request)
        }
    }
}
