import PermissionDomain
import TestSupport
import Testing

/// SPEC §2: the built-in catalogue, row by row.
@Suite struct CatalogueTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let service: String
        let levels: [String]
        let keys: [[String]]
        let specials: Set<ServiceSpecial>
        var testDescription: String { service }
    }

    static let rows: [Row] = [
        Row(
            service: "location", levels: ["whenInUse", "always"],
            keys: [
                ["NSLocationWhenInUseUsageDescription"],
                ["NSLocationWhenInUseUsageDescription", "NSLocationAlwaysAndWhenInUseUsageDescription"],
            ],
            specials: [.allowOnce, .provisionalAlways, .locationServicesSwitch, .resetOnReinstall]),
        Row(
            service: "photos", levels: ["addOnly", "limited", "full"],
            keys: [
                ["NSPhotoLibraryAddUsageDescription"], ["NSPhotoLibraryUsageDescription"], ["NSPhotoLibraryUsageDescription"],
            ],
            specials: [.userSelectedItems]),
        Row(
            service: "contacts", levels: ["limited", "full"],
            keys: [["NSContactsUsageDescription"], ["NSContactsUsageDescription"]], specials: []),
        Row(
            service: "calendars", levels: ["writeOnly", "full"],
            keys: [["NSCalendarsWriteOnlyAccessUsageDescription"], ["NSCalendarsFullAccessUsageDescription"]],
            specials: []),
        Row(service: "reminders", levels: ["full"], keys: [["NSRemindersFullAccessUsageDescription"]], specials: []),
        Row(service: "camera", levels: ["full"], keys: [["NSCameraUsageDescription"]], specials: []),
        Row(service: "microphone", levels: ["full"], keys: [["NSMicrophoneUsageDescription"]], specials: []),
        Row(service: "bluetooth", levels: ["full"], keys: [["NSBluetoothAlwaysUsageDescription"]], specials: []),
        Row(service: "motion", levels: ["full"], keys: [["NSMotionUsageDescription"]], specials: []),
        Row(
            service: "speechRecognition", levels: ["full"], keys: [["NSSpeechRecognitionUsageDescription"]],
            specials: []),
        Row(service: "mediaLibrary", levels: ["full"], keys: [["NSAppleMusicUsageDescription"]], specials: []),
        Row(service: "homeKit", levels: ["full"], keys: [["NSHomeKitUsageDescription"]], specials: []),
        Row(service: "localNetwork", levels: ["full"], keys: [["NSLocalNetworkUsageDescription"]], specials: []),
        Row(service: "tracking", levels: ["full"], keys: [["NSUserTrackingUsageDescription"]], specials: []),
    ]

    @Test(arguments: rows)
    func builtinService(row: Row) throws {
        let definition = try #require(Catalogue.builtin(try ServiceID(row.service)))
        #expect(definition.levels.map(\.rawValue) == row.levels)
        #expect(definition.purposeKeys == row.keys)
        #expect(definition.specials == row.specials)
        #expect(definition.builtin)
        #expect(Catalogue.isBuiltin(definition.id))
    }

    @Test func catalogueHasExactlyTheSpecRowsInOrder() {
        #expect(Catalogue.builtins.map(\.id.rawValue) == Self.rows.map(\.service))
    }

    @Test func locationAlwaysNeedsBothKeysAndPhotosShareTheReadKey() {
        let location = Fixtures.service(.location)
        #expect(
            Set(location.purposeKeys(for: .always))
                == Set(location.purposeKeys(for: .whenInUse) + ["NSLocationAlwaysAndWhenInUseUsageDescription"]))
        let photos = Fixtures.service(.photos)
        #expect(photos.purposeKeys(for: .limited) == photos.purposeKeys(for: .full))
        #expect(photos.purposeKeys(for: .addOnly) != photos.purposeKeys(for: .limited))
        #expect(photos.purposeKeys(for: .always) == [])
    }

    @Test func rankAndLevelChecks() throws {
        let photos = Fixtures.service(.photos)
        #expect(photos.rank(of: .addOnly) == 0 && photos.rank(of: .full) == 2 && photos.rank(of: .always) == nil)
        #expect(photos.strongestLevel == .full)
        #expect(throws: PermissionError.unknownLevel(level: "always", service: .photos, allowed: [.addOnly, .limited, .full])) {
            try photos.requireLevel(.always)
        }
    }

    @Test func customServiceDefinitionsAreValidated() throws {
        let id = try ServiceID("payroll")
        let ok = try ServiceDefinition(
            id: id, levels: [try Level("read"), try Level("write")],
            purposeKeys: [["PayrollRead"], ["PayrollRead", "PayrollWrite"]])
        #expect(!ok.builtin && ok.specials.isEmpty)
        #expect(throws: PermissionError.self) { try ServiceDefinition(id: id, levels: [], purposeKeys: []) }
        #expect(throws: PermissionError.self) {
            try ServiceDefinition(id: id, levels: [.full, .full], purposeKeys: [["K"], ["K"]])
        }
        #expect(throws: PermissionError.self) { try ServiceDefinition(id: id, levels: [.full], purposeKeys: [[]]) }
        #expect(throws: PermissionError.self) { try ServiceDefinition(id: id, levels: [.full], purposeKeys: [["K"], ["L"]]) }
        #expect(throws: PermissionError.self) { try ServiceDefinition(id: id, levels: [.full], purposeKeys: [["bad key"]]) }
    }
}
