import HTTPCore
import Logging
import Testing

/// The frozen router, in process: templates, decoding, 404/405, HEAD.
@Suite struct RouterTests {
    static func request(_ method: HTTPMethod, _ target: String) -> HTTPRequest {
        let parts = target.split(separator: "?", maxSplits: 1)
        let head = HTTPRequestHead(
            method: method, target: target, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : nil,
            version: .http1_1, headers: ["Host": "t"], authority: "t", keepAlive: true, framing: .none, expectContinue: false)
        return HTTPRequest(head: head)
    }

    static let context = RequestContext(requestId: "test-1", logger: Logger(label: "test"), remoteAddress: "127.0.0.1:1")

    static func responder() -> any HTTPResponder {
        var router = Router()
        router.get("/v1/users/{user}/apps/{app}") { _, context in
            textResponse("\(context.route ?? "") user=\(context.parameters["user"] ?? "") app=\(context.parameters["app"] ?? "")")
        }
        router.put("/v1/users/{user}/apps/{app}") { _, _ in textResponse("put") }
        router.get("/v1/users/me/apps/{app}") { _, context in textResponse("me \(context.parameters["app"] ?? "")") }
        router.get("/v1/users/{user}/settings") { _, context in textResponse("settings \(context.parameters["user"] ?? "")") }
        router.delete("/v1/things/{id}") { _, _ in HTTPResponse(status: .noContent) }
        router.get("/") { _, _ in textResponse("root") }
        router.get("/search") { request, _ in textResponse(try request.queryValue("q") ?? "none") }
        return router.buildResponder()
    }

    /// What the engine does: `prepare` (where to run it, and the match), then `respond` with
    /// the same context, which answers from that match without routing again.
    @Test func prepareThenRespondAnswersFromTheMatch() throws {
        let responder = Self.responder()
        var context = Self.context
        let request = Self.request(.get, "/v1/users/u%2F1/apps/com.a")
        #expect(responder.prepare(request.head, context: &context) == .eventLoop)
        let response = try responder.respond(to: request, context: context)
        guard case .bytes(let body) = response.body else {
            Issue.record("no body")
            return
        }
        #expect(String(decoding: body, as: UTF8.self) == "/v1/users/{user}/apps/{app} user=u/1 app=com.a")
        // A match another router left in the context is not taken for this router's own.
        var other = Router()
        other.get("/v1/users/{user}/settings") { _, context in textResponse("other \(context.parameters["user"] ?? "")") }
        let otherResponder = other.buildResponder()
        var shared = Self.context
        _ = responder.prepare(Self.request(.get, "/v1/users/a/apps/b").head, context: &shared)
        let answer = try otherResponder.respond(to: Self.request(.get, "/v1/users/z/settings"), context: shared)
        guard case .bytes(let otherBody) = answer.body else {
            Issue.record("no body")
            return
        }
        #expect(String(decoding: otherBody, as: UTF8.self) == "other z")
        // Misses are left to respond, which throws them.
        var missed = Self.context
        #expect(responder.prepare(Self.request(.get, "/nowhere").head, context: &missed) == .eventLoop)
        #expect(throws: HTTPError.self) { try responder.respond(to: Self.request(.get, "/nowhere"), context: missed) }
    }

    /// As the engine answers: `prepare`, then `respond` with the prepared context.
    static func answer(_ method: HTTPMethod, _ target: String) throws -> HTTPResponse {
        let responder = Self.responder()
        let request = Self.request(method, target)
        var context = Self.context
        _ = responder.prepare(request.head, context: &context)
        return try responder.respond(to: request, context: context)
    }

    func text(_ method: HTTPMethod, _ target: String) throws -> String {
        let response = try Self.answer(method, target)
        guard case .bytes(let body) = response.body else { return "" }
        return String(decoding: body, as: UTF8.self)
    }

    func httpError(_ method: HTTPMethod, _ target: String) -> HTTPError? {
        do {
            _ = try Self.answer(method, target)
            return nil
        } catch {
            return error as? HTTPError
        }
    }

    /// The template is in the context once `prepare` ran, before any middleware: for a route
    /// that answers the method only; a miss leaves none, and `respond` throws what it found.
    @Test func prepareLeavesTheTemplateForTheMiddleware() {
        let responder = Self.responder()
        func prepared(_ method: HTTPMethod, _ target: String) -> RequestContext {
            var context = Self.context
            _ = responder.prepare(Self.request(method, target).head, context: &context)
            return context
        }
        #expect(prepared(.get, "/v1/users/u1/apps/a").route == "/v1/users/{user}/apps/{app}")
        #expect(prepared(.get, "/v1/users/u1/apps/a").parameters["app"] == "a")
        #expect(prepared(.head, "/").route == "/")
        #expect(Self.context.route == nil)
        for (method, target) in [(HTTPMethod.get, "/nowhere"), (.post, "/v1/users/u1/apps/a"), (.get, "/v1/users/%zz/apps/x")] {
            #expect(prepared(method, target).route == nil, "\(method.rawValue) \(target)")
        }
    }

    /// A router called without `prepare` (mounted inside a route) matches on its own.
    @Test func respondWithoutPrepareStillRoutes() throws {
        let response = try Self.responder().respond(to: Self.request(.get, "/v1/users/me/apps/x"), context: Self.context)
        guard case .bytes(let body) = response.body else {
            Issue.record("no body")
            return
        }
        #expect(String(decoding: body, as: UTF8.self) == "me x")
        #expect(throws: HTTPError.self) {
            try Self.responder().respond(to: Self.request(.post, "/"), context: Self.context)
        }
    }

    @Test func parametersAreCapturedAndDecoded() throws {
        #expect(
            try text(.get, "/v1/users/u42/apps/com.example.maps") == "/v1/users/{user}/apps/{app} user=u42 app=com.example.maps")
        #expect(try text(.get, "/v1/users/a%2Fb/apps/x%20y") == "/v1/users/{user}/apps/{app} user=a/b app=x y")
        #expect(try text(.get, "/") == "root")
    }

    @Test func literalSegmentsWinAndBacktrack() throws {
        #expect(try text(.get, "/v1/users/me/apps/x") == "me x")
        // "me" has no settings literal route, so matching falls back to the parameter branch.
        #expect(try text(.get, "/v1/users/me/settings") == "settings me")
    }

    @Test func unknownPathIs404() {
        #expect(httpError(.get, "/v1/nothing")?.status.code == 404)
        #expect(httpError(.get, "/v1/users/u42/apps/x/extra")?.status.code == 404)
        #expect(httpError(.get, "/v1/users/u42/apps/")?.status.code == 404)
    }

    @Test func wrongMethodIs405WithAllow() {
        let error = httpError(.post, "/v1/users/u42/apps/x")
        #expect(error?.status.code == 405)
        #expect(error?.headers["Allow"] == "GET, HEAD, OPTIONS, PUT")
        #expect(httpError(.get, "/v1/things/1")?.headers["Allow"] == "DELETE, OPTIONS")
    }

    /// OPTIONS (RFC 9110 §9.3.7): on a resource, `204` with the methods it allows; `OPTIONS *`,
    /// the server in general, every method some route answers; on no resource, 404.
    @Test func optionsSaysWhatIsAllowed() throws {
        for (path, allow) in [("/v1/users/u42/apps/x", "GET, HEAD, OPTIONS, PUT"), ("/v1/things/1", "DELETE, OPTIONS")] {
            let response = try Self.answer(.options, path)
            #expect(response.status.code == 204, "\(path)")
            #expect(response.headers["Allow"] == allow, "\(path)")
        }
        let responder = Self.responder()
        var context = Self.context
        #expect(responder.prepare(Self.request(.options, "*").head, context: &context) == .eventLoop)
        let answer = try responder.respond(to: Self.request(.options, "*"), context: context)
        #expect(answer.status.code == 204)
        #expect(answer.headers["Allow"] == "DELETE, GET, HEAD, OPTIONS, PUT")
        #expect(context.route == "*")
        #expect(httpError(.options, "/v1/nothing")?.status.code == 404)
        #expect(httpError(.get, "*")?.status.code == 404, "the asterisk-form is OPTIONS' alone")
    }

    /// A method the server does not recognize is 501 on any path (RFC 9110 §9.1); one it knows
    /// that the resource does not take stays 405. Methods are case-sensitive.
    @Test func unrecognizedMethodIs501() {
        for method in ["FOO", "get", "PROPFIND"] {
            #expect(httpError(HTTPMethod(method), "/v1/users/u42/apps/x")?.status.code == 501, "\(method)")
            #expect(httpError(HTTPMethod(method), "/v1/nothing")?.status.code == 501, "\(method)")
            #expect(httpError(HTTPMethod(method), "/v1/nothing")?.headers["Allow"] == nil)
        }
        for method in [HTTPMethod.patch, .trace, .delete, HTTPMethod("QUERY")] {
            #expect(httpError(method, "/v1/users/u42/apps/x")?.status.code == 405, "\(method)")
        }
        #expect(httpError(.patch, "/v1/nothing")?.status.code == 404)
    }

    @Test func headIsServedByGet() throws {
        #expect(try text(.head, "/") == "root")
    }

    @Test func invalidEscapesAre400() {
        #expect(httpError(.get, "/v1/users/%zz/apps/x")?.status.code == 400)
        #expect(httpError(.get, "/v1/users/%C3%28/apps/x")?.status.code == 400)
        #expect(httpError(.get, "/search?q=%G1")?.status.code == 400)
    }

    @Test func queryHelperDecodes() throws {
        #expect(try text(.get, "/search?a=1&q=hello+w%C3%B6rld") == "hello wörld")
        #expect(try text(.get, "/search") == "none")
    }
}
