import HTTPCore

/// A refusal decided by the API layer itself (a bad query parameter, a body that is not JSON,
/// too many event streams), named by its stable problem type. Mapped to problem+json once, at
/// the edge, by `ErrorMapping` like every other error.
struct APIProblem: Error, Sendable {
    let type: Wire.ProblemType
    let detail: String
    /// Extra members as (name, already-encoded JSON value) pairs.
    var extensions: [(String, String)] = []
    var headers: HTTPHeaders = HTTPHeaders()

    init(_ type: Wire.ProblemType, _ detail: String, extensions: [(String, String)] = [], headers: HTTPHeaders = HTTPHeaders()) {
        self.type = type
        self.detail = detail
        self.extensions = extensions
        self.headers = headers
    }

    /// 400 `invalid-request` for a query parameter or header.
    static func invalidParameter(_ name: String, _ why: String) -> APIProblem {
        APIProblem(.invalidRequest, "\(name): \(why)")
    }
}
