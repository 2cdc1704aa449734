/// The life of a prompt (SPEC §4): `pending` until answered, expired by `promptTTL`, or
/// cancelled because the authorization was changed another way.
public enum PromptState: String, Sendable, CaseIterable, Hashable {
    case pending
    case answered
    case expired
    case cancelled
}
