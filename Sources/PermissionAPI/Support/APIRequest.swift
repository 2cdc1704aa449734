import HTTPCore
import Logging
import PermissionDomain

/// A request as controllers see it: the HTTP request and its context, the resolved principal,
/// and the API configuration, with typed accessors for path parameters.
struct APIRequest {
    let http: HTTPRequest
    let context: RequestContext
    let principal: Principal
    let configuration: APIConfiguration

    /// The actor for audit entries.
    var actor: Actor { principal.actor }
    /// The request id for audit entries and problems.
    var requestId: String { context.requestId }
    var logger: Logger { context.logger }
    var headers: HTTPHeaders { http.headers }

    /// The raw (percent-decoded) path parameter `name`.
    /// - Throws: `APIProblem` 400 when the route has no such parameter (a programming error).
    func parameter(_ name: String) throws -> String {
        guard let value = context.parameters[name] else {
            throw APIProblem.invalidParameter(name, "missing path parameter")
        }
        return value
    }

    /// `{user}`. - Throws: `PermissionError.invalidArgument` (400) when malformed.
    func user() throws -> UserID { try UserID(parameter("user")) }
    /// `{app}`. - Throws: `PermissionError.invalidArgument` (400) when malformed.
    func app() throws -> AppID { try AppID(parameter("app")) }
    /// `{service}`. - Throws: `PermissionError.invalidArgument` (400) when malformed.
    func service() throws -> ServiceID { try ServiceID(parameter("service")) }
}
