/// What raised a prompt: the app's request, or the system's location upgrade prompt
/// (seed 004, "Permission Upgrade Prompt": only the OS triggers it).
public enum PromptKind: String, Sendable, CaseIterable, Hashable {
    case request
    case upgrade
}
