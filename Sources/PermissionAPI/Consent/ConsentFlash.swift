/// The line a page shows after a change (`<p id="flash" role="status">`) or a refusal
/// (`<p id="flash" class="error" role="alert">`). After a successful POST the page redirects
/// (303) with `?done=<name>`, and the next page shows the fixed text of that name: nothing the
/// request sent is ever shown back, and an unknown name shows nothing.
enum ConsentFlash: Sendable, Equatable {
    case done(Done)
    case error(ConsentText.Key)

    /// What was done, as the `done` query value names it.
    enum Done: String, Sendable, CaseIterable {
        case decided, saved, locationOn, locationOff

        var text: ConsentText.Key {
            switch self {
            case .decided: return .doneDecided
            case .saved: return .doneSaved
            case .locationOn: return .doneLocationOn
            case .locationOff: return .doneLocationOff
            }
        }
    }

    /// The flash of a `done` query value, nil for none or an unknown one.
    static func named(_ value: String?) -> ConsentFlash? {
        value.flatMap(Done.init(rawValue:)).map(ConsentFlash.done)
    }

    func html(_ language: ConsentLanguage) -> HTML {
        switch self {
        case .done(let done):
            return HTML.element("p", ["id": "flash", "role": "status"], HTML(ConsentText.text(done.text, language)))
        case .error(let key):
            return HTML.element(
                "p", ["id": "flash", "class": "error", "role": "alert"], HTML(ConsentText.text(key, language)))
        }
    }
}
