import HTTPCore
import PermissionDomain

/// Settings › Privacy (`GET /consent/settings`): the Location Services switch, then one
/// section per service some app holds an authorization record of, with one form per app:
/// its options as radio buttons (the current one checked) and a Save button; an entry a policy
/// decides (restricted, or allowed by an operator) is shown as such, its controls disabled.
enum ConsentSettingsPage {
    /// One app's entry: the service, the app's name, its authorization as the entry shows it
    /// (with Location Services off, the choice kept for when they are on again, as on iOS), and
    /// the options it offers.
    struct Entry: Sendable {
        let service: ServiceDefinition
        let appName: String
        let authorization: Authorization
        /// The registered app, nil when never registered: its purpose strings decide the options.
        let app: App?
        let options: [ConsentSettingOption]

        init(service: ServiceDefinition, appName: String, authorization: Authorization, app: App?) {
            self.service = service
            self.appName = appName
            self.authorization = authorization
            self.app = app
            options = ConsentSettingOption.options(
                for: service, app: app, current: ConsentSettingOption.current(authorization, service: service))
        }

        /// Whether a policy decides the entry (restricted, or allowed by an operator): the user
        /// cannot change it here.
        var managed: Bool { authorization.reason == .policy }
    }

    static func page(
        entries: [Entry], locationServicesEnabled: Bool, visit: ConsentVisit, language: ConsentLanguage,
        flash: ConsentFlash?, status: HTTPStatus = .ok
    ) -> ConsentPage {
        var content = [locationSwitch(enabled: locationServicesEnabled, visit: visit, language: language)]
        if !locationServicesEnabled {
            content.append(HTML.element("p", ["class": "note"], HTML(ConsentText.text(.locationServicesOffNote, language))))
        }
        var order: [ServiceID] = []
        var byService: [ServiceID: [Entry]] = [:]
        for entry in entries {
            if byService[entry.service.id] == nil { order.append(entry.service.id) }
            byService[entry.service.id, default: []].append(entry)
        }
        if order.isEmpty { content.append(HTML.element("p", ["class": "empty"], HTML(ConsentText.text(.noApps, language)))) }
        for service in order {
            let group = byService[service] ?? []
            content.append(
                HTML.element(
                    "section", ["class": "service", "data-service": service.rawValue],
                    [HTML.element("h2", [:], HTML(ConsentText.serviceName(service, language)))]
                        + group.map { form($0, visit: visit, language: language) }))
        }
        var page = ConsentPage(
            status: status, title: ConsentText.text(.settingsHeading, language), content: content, language: language)
        page.visit = visit
        page.section = .settings
        page.flash = flash
        return page
    }

    /// The Location Services switch: a button that sets the other state, `aria-pressed` the
    /// current one.
    static func locationSwitch(enabled: Bool, visit: ConsentVisit, language: ConsentLanguage) -> HTML {
        HTML.element(
            "form", ["id": "location-services", "method": "post", "action": "/consent/settings/location-services"],
            ConsentPage.csrfField(visit),
            HTML.element(
                "button",
                [
                    "type": "submit", "name": "enabled", "value": enabled ? "false" : "true",
                    "aria-pressed": enabled ? "true" : "false",
                ],
                HTML.element("span", ["class": "switch-label"], HTML(ConsentText.text(.locationServices, language))),
                HTML.element(
                    "span", ["class": "switch-state"], HTML(ConsentText.text(enabled ? .switchOn : .switchOff, language))),
                HTML.element("span", ["class": "switch", "aria-hidden": "true"])))
    }

    /// One app's form.
    static func form(_ entry: Entry, visit: ConsentVisit, language: ConsentLanguage) -> HTML {
        let service = entry.service.id.rawValue
        let app = entry.authorization.app.rawValue
        let restricted = entry.managed
        let current = ConsentSettingOption.current(entry.authorization, service: entry.service)
        let options = entry.options.map { option -> HTML in
            let id = "setting-\(service)-\(app)-\(option.rawValue)"
            var attributes: [(StaticString, String)] = [
                ("type", "radio"), ("name", "value"), ("id", id), ("value", option.rawValue),
            ]
            if option == current { attributes.append(("checked", "")) }
            if restricted { attributes.append(("disabled", "")) }
            return HTML.element(
                "div", ["class": "option"],
                HTML.void("input", attributes: attributes),
                HTML.element("label", ["for": id], HTML(ConsentText.option(option, language))))
        }
        var formAttributes: [(StaticString, String)] = [
            ("class", "app-setting"), ("method", "post"), ("action", "/consent/settings/\(service)/\(app)"),
            ("data-app", app),
        ]
        if restricted { formAttributes.append(("data-restricted", "true")) }
        // The entry and its button are named with the app and the service (WCAG 1.3.1, 2.4.6):
        // the legend shows the app only, the service is the section's heading.
        var save: [(StaticString, String)] = [
            ("type", "submit"), ("class", "save"),
            ("aria-label", ConsentText.saveSetting(app: entry.appName, service: entry.service.id, language)),
        ]
        if restricted { save.append(("disabled", "")) }
        // A managed entry's note says why its controls are off; tied to the entry (WCAG 1.3.1),
        // so that a screen reader says it with the entry, not only where it stands.
        let noteID = "managed-\(service)-\(app)"
        var fieldset: [(StaticString, String)] = [
            ("aria-label", ConsentText.settingEntry(app: entry.appName, service: entry.service.id, language))
        ]
        if restricted { fieldset.append(("aria-describedby", noteID)) }
        var content = [
            ConsentPage.csrfField(visit),
            HTML.element(
                "fieldset", attributes: fieldset,
                [HTML.element("legend", [:], HTML(ConsentText.isolated(entry.appName)))] + options),
        ]
        if restricted {
            let note: ConsentText.Key = entry.authorization.status == .restricted ? .restricted : .allowedByPolicy
            content.append(HTML.element("p", ["class": "restricted", "id": noteID], HTML(ConsentText.text(note, language))))
        }
        content.append(
            HTML.element(
                "div", ["class": "actions"],
                HTML.element("button", attributes: save, [HTML(ConsentText.text(.save, language))])))
        return HTML.element("form", attributes: formAttributes, content)
    }
}
