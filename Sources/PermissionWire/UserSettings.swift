/// A user's device-wide settings (`GET`/`PUT /v1/users/{user}/settings`): the global Location
/// Services switch (SPEC §4).
public struct UserSettings: RequestBody, Codable, Equatable {
    public static let allowedKeys: Set<String> = ["locationServicesEnabled"]

    public var locationServicesEnabled: Bool

    public init(locationServicesEnabled: Bool) {
        self.locationServicesEnabled = locationServicesEnabled
    }
}
