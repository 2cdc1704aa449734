import PermissionDomain
import PermissionWire

extension WireMapping {
    static func prompt(_ value: PermissionDomain.Prompt) -> Wire.Prompt {
        Wire.Prompt(
            id: value.id.rawValue, user: value.user.rawValue, app: value.app.rawValue,
            service: value.service.rawValue, kind: kind(value.kind),
            level: value.requestedLevel.rawValue, options: value.options.map(\.rawValue),
            purpose: value.purpose.rawValue, purposeLanguage: value.purposeLanguage?.rawValue, purposeKey: value.purposeKey,
            state: state(value.state),
            createdAt: value.createdAt, expiresAt: value.expiresAt,
            answeredAt: value.state == .answered ? value.endedAt : nil, choice: value.choice?.rawValue,
            backgroundUses: value.backgroundUses)
    }

    static func kind(_ value: PromptKind) -> Wire.Prompt.Kind {
        switch value {
        case .request: .request
        case .upgrade: .upgrade
        case .locationButton: .locationButton
        case .locationAlert: .locationAlert
        }
    }

    static func state(_ value: PromptState) -> Wire.Prompt.State {
        switch value {
        case .pending: .pending
        case .answered: .answered
        case .expired: .expired
        case .cancelled: .cancelled
        }
    }
}
