/// What raised a prompt: the app's request, the system's location upgrade prompt (seed 004,
/// "Permission Upgrade Prompt": only the OS triggers it), or the first press of the app's
/// location button (SPEC §11, HIG "Location button"), which explains the button once.
public enum PromptKind: String, Sendable, CaseIterable, Hashable {
    case request
    case upgrade
    case locationButton
}
