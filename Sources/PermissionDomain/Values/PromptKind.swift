/// What raised a prompt: the app's request, the system's location upgrade prompt (seed 004,
/// "Permission Upgrade Prompt": only the OS triggers it), the first press of the app's
/// location button (SPEC §11, HIG "Location button"), which explains the button once, or the
/// system's reminder that an app with Always location access has been using it in the
/// background (seed 004, "Location Alerts"; SPEC §11).
public enum PromptKind: String, Sendable, CaseIterable, Hashable {
    case request
    case upgrade
    case locationButton
    case locationAlert
}
