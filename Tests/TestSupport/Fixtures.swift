package import Foundation
package import PermissionDomain

/// Values shared by the domain, service-flow and store tests: a fixed time, well-formed ids and
/// an app that has every built-in purpose string.
package enum Fixtures {
    /// 2026-11-22T10:00:00Z.
    package static let t0 = Date(timeIntervalSince1970: 1_795_341_600)
    package static let user = try! UserID("u42")
    package static let otherUser = try! UserID("u43")
    package static let app = try! AppID("com.example.maps")
    package static let otherApp = try! AppID("com.example.other")

    /// Every purpose key of the built-in catalogue, each with a distinct text.
    package static let allPurposeStrings: [String: PurposeString] = {
        var strings: [String: PurposeString] = [:]
        for service in Catalogue.builtins {
            for keys in service.purposeKeys {
                for key in keys { strings[key] = try! PurposeString("Purpose of \(key).") }
            }
        }
        return strings
    }()

    /// A registered app with every built-in purpose string but `missing`.
    package static func registeredApp(_ id: AppID = app, without missing: Set<String> = []) -> App {
        try! App(
            id: id, name: "Maps", purposeStrings: allPurposeStrings.filter { !missing.contains($0.key) }, updatedAt: t0)
    }
}
