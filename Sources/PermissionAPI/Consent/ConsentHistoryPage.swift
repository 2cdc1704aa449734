import Foundation
import PermissionDomain

/// The history (`GET /consent/history?after=<seq>`): the user's own audit entries, newest
/// first, ``pageSize`` a page, each with its time, app, service and what changed in words;
/// `a#history-older` leads to the next (older) page when there is one; `a#download-data`
/// downloads everything kept about the user (`/consent/export`).
enum ConsentHistoryPage {
    static let pageSize = 20

    /// One entry as shown: the entry and its app's name.
    struct Item: Sendable {
        let entry: AuditEntry
        let appName: String?
    }

    /// - Parameter older: the `after` value of the next page, nil on the last page.
    static func page(
        _ items: [Item], older: Int64?, visit: ConsentVisit, language: ConsentLanguage, flash: ConsentFlash? = nil
    ) -> ConsentPage {
        var content: [HTML] = []
        if items.isEmpty {
            content.append(HTML.element("p", ["class": "empty"], HTML(ConsentText.text(.noHistory, language))))
        } else {
            content.append(HTML.element("ol", ["id": "history"], items.map { item($0, language) }))
        }
        content.append(
            HTML.element(
                "a", ["id": "download-data", "href": "/consent/export", "download": ""],
                HTML(ConsentText.text(.downloadData, language))))
        if let older {
            content.append(
                HTML.element(
                    "a", ["id": "history-older", "href": "/consent/history?after=\(older)"],
                    HTML(ConsentText.text(.olderEntries, language))))
        }
        var page = ConsentPage(
            status: .ok, title: ConsentText.text(.historyHeading, language), content: content, language: language)
        page.visit = visit
        page.section = .history
        page.flash = flash
        return page
    }

    static func item(_ item: Item, _ language: ConsentLanguage) -> HTML {
        let entry = item.entry
        var facts: [String] = []
        if let name = item.appName { facts.append(ConsentText.isolated(name)) }
        if let service = entry.service { facts.append(ConsentText.serviceName(service, language)) }
        if let to = entry.to, entry.from != to { facts.append(ConsentText.now(ConsentText.state(to, language), language)) }
        var parts = [
            HTML.element("time", ["datetime": ConsentPage.machineTime(entry.at)], HTML(ConsentPage.readableTime(entry.at))),
            HTML.element("span", ["class": "what"], HTML(ConsentText.action(entry, language))),
        ]
        if !facts.isEmpty {
            parts.append(HTML.element("span", ["class": "detail", "dir": "auto"], HTML(facts.joined(separator: " · "))))
        }
        return HTML.element("li", ["data-seq": String(entry.seq)], parts)
    }
}
