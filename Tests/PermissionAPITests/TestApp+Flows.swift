import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire

/// The flows of SPEC §4 as HTTP calls, for scenario tests. Defaults: user u42, app com.example.maps.
extension TestApp {
    static func path(_ user: String, _ app: String, _ service: String) -> String {
        "/v1/users/\(user)/apps/\(app)/authorizations/\(service)"
    }

    /// `GET` one authorization; fails unless 200.
    func authorization(_ service: String, user: String = "u42", app: String = "com.example.maps") throws -> Authorization {
        let response = try send(.get, Self.path(user, app, service))
        guard response.status == 200 else { throw TestFailure("GET authorization: \(response.status) \(response.text)") }
        return try response.decode(Authorization.self)
    }

    /// `POST .../request`; returns the status and the outcome (or throws with the problem).
    func request(
        _ service: String, _ level: String, user: String = "u42", app: String = "com.example.maps"
    ) throws
        -> (status: Int, outcome: RequestOutcome)
    {
        let response = try send(.post, Self.path(user, app, service) + "/request", json: #"{"level":"\#(level)"}"#)
        guard response.status == 200 || response.status == 202 else {
            throw TestFailure("request: \(response.status) \(response.text)")
        }
        return (response.status, try response.decode(RequestOutcome.self))
    }

    /// Requests and expects a prompt (202).
    func prompt(_ service: String, _ level: String, user: String = "u42", app: String = "com.example.maps") throws -> Prompt {
        let (status, outcome) = try request(service, level, user: user, app: app)
        guard status == 202, let prompt = outcome.prompt else { throw TestFailure("expected a prompt, got \(status)") }
        return prompt
    }

    /// Answers a prompt; fails unless 200.
    func decide(_ prompt: Prompt, _ choice: String) throws -> DecisionResult {
        let response = try send(.post, "/v1/prompts/\(prompt.id)/decision", json: #"{"choice":"\#(choice)"}"#)
        guard response.status == 200 else { throw TestFailure("decision: \(response.status) \(response.text)") }
        return try response.decode(DecisionResult.self)
    }

    /// Requests `level` and answers the prompt with `choice`; returns the authorization.
    @discardableResult
    func grant(
        _ service: String, _ level: String, _ choice: String, user: String = "u42", app: String = "com.example.maps"
    )
        throws -> Authorization
    {
        try decide(try prompt(service, level, user: user, app: app), choice).authorization
    }

    /// `PUT` settings with a JSON body; returns the response.
    @discardableResult
    func set(
        _ service: String, _ json: String, user: String = "u42", app: String = "com.example.maps",
        headers: [(String, String)] = []
    ) throws -> TestResponse {
        try send(.put, Self.path(user, app, service), json: json, headers: headers)
    }

    @discardableResult
    func lifecycle(_ event: String, user: String = "u42", app: String = "com.example.maps") throws -> TestResponse {
        try send(.post, "/v1/users/\(user)/apps/\(app)/lifecycle", json: #"{"event":"\#(event)"}"#)
    }

    @discardableResult
    func policy(_ id: String, _ json: String) throws -> TestResponse {
        try send(.put, "/v1/policies/\(id)", json: json)
    }

    /// The audit entries after `after`, as the API returns them.
    func audit(_ query: String = "") throws -> [AuditEntry] {
        let response = try send(.get, "/v1/audit" + (query.isEmpty ? "" : "?" + query))
        guard response.status == 200 else { throw TestFailure("audit: \(response.status) \(response.text)") }
        return try response.decode(AuditPage.self).items
    }

    /// `GET /v1/prompts/{id}`.
    func promptState(_ prompt: Prompt) throws -> Prompt.State {
        try send(.get, "/v1/prompts/\(prompt.id)").decode(Prompt.self).state
    }
}
