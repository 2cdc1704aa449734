import Foundation

/// Who changes what, when: the facts every audit entry of one flow shares.
struct ChangeContext: Sendable {
    let actor: Actor
    let requestId: String?
    let now: Date
}

/// An authorization loaded for a flow: its service, stored record and effective view.
struct LoadedAuthorization {
    let service: ServiceDefinition
    let stored: StoredAuthorization
    let effective: Authorization
}
