public import Foundation

/// The body of `POST /v1/prompts/{id}/decision`. `choice` is a plain string so that a choice
/// the prompt does not offer reaches the service and gets `422 invalid-choice` with `allowed`.
/// `until` (RFC 3339) makes the grant an expiring one (SPEC §11): it reads `notDetermined`
/// (`expired`) from then on.
public struct Decision: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["choice", "until"]
    public static let notNullable: Set<String> = ["until"]

    public var choice: String
    /// When the grant ends; only with a choice that grants access other than `allowOnce`.
    public var until: Date?

    public init(choice: String, until: Date? = nil) {
        self.choice = choice
        self.until = until
    }
}
