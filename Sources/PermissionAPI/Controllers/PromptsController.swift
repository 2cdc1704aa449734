import HTTPCore
import PermissionDomain

/// Prompts (SPEC §4 Prompt): what the consent UI must show, one prompt, and the decision.
struct PromptsController {
    let permissions: PermissionService

    func register(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.get("/v1/users/{user}/prompts", access: .readPrompts, execution: .worker) { request in
            let query = try QueryParameters(request.http)
            var filter = PromptFilter(user: try request.user())
            filter.state = try query.choice("state", PromptState.self)
            let after = try query.value("after") { try PromptID($0) }  // a position (Cursor)
            let limit = try query.limit(
                default: request.configuration.defaultPageLimit, maximum: request.configuration.maxPageLimit)
            let page = try permissions.prompts(matching: filter, after: after, limit: limit)
            return try Responses.json(
                Wire.PromptList(
                    items: page.items.map(WireMapping.prompt),
                    nextCursor: page.nextAfter?.rawValue))
        }
        routes.get("/v1/prompts/{id}", access: .readPrompts) { request in
            let prompt = try permissions.prompt(id: PromptID(request.parameter("id")))
            return try Responses.json(WireMapping.prompt(prompt))
        }
        routes.post("/v1/prompts/{id}/decision", access: .decide) { request in
            let id = try PromptID(request.parameter("id"))
            let decision = try request.decode(Wire.Decision.self)
            let outcome = try permissions.decide(
                promptID: id, choice: decision.choice, until: decision.until, actor: request.actor, requestId: request.requestId)
            return try Responses.json(
                Wire.DecisionResult(
                    prompt: WireMapping.prompt(outcome.prompt),
                    authorization: WireMapping.authorization(outcome.authorization)),
                headers: ["ETag": outcome.authorization.etag])
        }
    }
}
