/// The line a page shows after a change (`<p id="flash" role="status">`) or a refusal
/// (`<p id="flash" class="error" role="alert">`). After a successful POST the page redirects
/// (303) with `?done=<name>`, and the next page shows the fixed text of that name: nothing the
/// request sent is ever shown back, and an unknown name shows nothing.
enum ConsentFlash: Sendable, Equatable {
    case done(Done)
    case error(ConsentText.Key)

    /// What was done, as the `done` query value names it.
    enum Done: String, Sendable, CaseIterable {
        case decided, saved, locationOn, locationOff, extended, extendNotYet, extendLimit

        var text: ConsentText.Key {
            switch self {
            case .decided: return .doneDecided
            case .saved: return .doneSaved
            case .locationOn: return .doneLocationOn
            case .locationOff: return .doneLocationOff
            case .extended: return .doneExtended
            case .extendNotYet: return .doneExtendNotYet
            case .extendLimit: return .doneExtendLimit
            }
        }
    }

    /// The flash of a `done` query value, nil for none or an unknown one.
    static func named(_ value: String?) -> ConsentFlash? {
        value.flatMap(Done.init(rawValue:)).map(ConsentFlash.done)
    }

    /// Focused when the page loads (`autofocus`, focusable by `tabindex="-1"` only): after the
    /// redirect a keyboard or screen reader user starts at what the change did, which a status
    /// present at load would not announce, rather than at the top of the page.
    func html(_ language: ConsentLanguage) -> HTML {
        switch self {
        case .done(let done):
            return HTML.element(
                "p", ["id": "flash", "role": "status", "tabindex": "-1", "autofocus": ""],
                HTML(ConsentText.text(done.text, language)))
        case .error(let key):
            return HTML.element(
                "p", ["id": "flash", "class": "error", "role": "alert", "tabindex": "-1", "autofocus": ""],
                HTML(ConsentText.text(key, language)))
        }
    }
}
