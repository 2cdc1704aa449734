/// The built-in services of SPEC §2, exactly: levels weakest first and the purpose keys per
/// level (Apple's Info.plist key names).
public enum Catalogue {
    /// Every built-in service, in the order of the SPEC §2 table.
    public static let builtins: [ServiceDefinition] = [
        service(
            .location, [.whenInUse, .always],
            [
                ["NSLocationWhenInUseUsageDescription"],
                ["NSLocationWhenInUseUsageDescription", "NSLocationAlwaysAndWhenInUseUsageDescription"],
            ],
            [.allowOnce, .provisionalAlways, .locationServicesSwitch, .resetOnReinstall]),
        service(
            .photos, [.addOnly, .limited, .full],
            [
                ["NSPhotoLibraryAddUsageDescription"], ["NSPhotoLibraryUsageDescription"],
                ["NSPhotoLibraryUsageDescription"],
            ],
            [.userSelectedItems]),
        service(.contacts, [.limited, .full], [["NSContactsUsageDescription"], ["NSContactsUsageDescription"]]),
        service(
            .calendars, [.writeOnly, .full],
            [["NSCalendarsWriteOnlyAccessUsageDescription"], ["NSCalendarsFullAccessUsageDescription"]]),
        service(.reminders, [.full], [["NSRemindersFullAccessUsageDescription"]]),
        service(.camera, [.full], [["NSCameraUsageDescription"]]),
        service(.microphone, [.full], [["NSMicrophoneUsageDescription"]]),
        service(.bluetooth, [.full], [["NSBluetoothAlwaysUsageDescription"]]),
        service(.motion, [.full], [["NSMotionUsageDescription"]]),
        service(.speechRecognition, [.full], [["NSSpeechRecognitionUsageDescription"]]),
        service(.mediaLibrary, [.full], [["NSAppleMusicUsageDescription"]]),
        service(.homeKit, [.full], [["NSHomeKitUsageDescription"]]),
        service(.localNetwork, [.full], [["NSLocalNetworkUsageDescription"]]),
        service(.tracking, [.full], [["NSUserTrackingUsageDescription"]]),
    ]

    private static let byID: [ServiceID: ServiceDefinition] = Dictionary(
        uniqueKeysWithValues: builtins.map { ($0.id, $0) })

    /// The built-in location service: the one with the provisional Always flow and location
    /// alerts (seed 004).
    public static let location: ServiceDefinition = {
        guard let location = builtins.first(where: { $0.id == .location }), location.specials.contains(.provisionalAlways)
        else { preconditionFailure("the catalogue has no location service with the provisional Always flow") }
        return location
    }()

    /// The built-in service `id`, or nil when `id` is not built in.
    public static func builtin(_ id: ServiceID) -> ServiceDefinition? { byID[id] }

    /// Whether `id` names a built-in service (a custom service may not take it).
    public static func isBuiltin(_ id: ServiceID) -> Bool { byID[id] != nil }

    private static func service(
        _ id: ServiceID, _ levels: [Level], _ keys: [[String]], _ specials: Set<ServiceSpecial> = []
    ) -> ServiceDefinition {
        ServiceDefinition(trusted: id, levels: levels, purposeKeys: keys, builtin: true, specials: specials)
    }
}
