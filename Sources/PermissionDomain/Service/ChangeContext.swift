import Foundation

/// Who changes what, when: the facts every audit entry of one flow shares.
struct ChangeContext: Sendable {
    let actor: Actor
    let requestId: String?
    let now: Date
}
