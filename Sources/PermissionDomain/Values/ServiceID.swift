/// A protected resource class of the catalogue (SPEC §2): lowerCamel,
/// `^[a-z][A-Za-z0-9]{0,63}$`. `all` is reserved: it names every service in a reset (SPEC §4).
public struct ServiceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `raw`: lowerCamel and not the reserved word `all`.
    /// - Throws: `PermissionError.invalidArgument(field: "service", ...)`.
    public init(_ raw: String) throws(PermissionError) {
        guard IdentifierSyntax.isLowerCamel(raw) else {
            throw .invalidArgument(field: "service", why: "must be lowerCamel: ^[a-z][A-Za-z0-9]{0,63}$")
        }
        guard raw != "all" else {
            throw .invalidArgument(field: "service", why: "\"all\" is reserved")
        }
        rawValue = raw
    }

    /// Wraps a value already validated (built in, or read back from the store); not for input.
    package init(trusted raw: String) { rawValue = raw }

    public static func isValid(_ raw: String) -> Bool { IdentifierSyntax.isLowerCamel(raw) && raw != "all" }

    public var description: String { rawValue }
    public static func < (lhs: ServiceID, rhs: ServiceID) -> Bool { lhs.rawValue < rhs.rawValue }

    public static let location = ServiceID(trusted: "location")
    public static let photos = ServiceID(trusted: "photos")
    public static let contacts = ServiceID(trusted: "contacts")
    public static let calendars = ServiceID(trusted: "calendars")
    public static let reminders = ServiceID(trusted: "reminders")
    public static let camera = ServiceID(trusted: "camera")
    public static let microphone = ServiceID(trusted: "microphone")
    public static let bluetooth = ServiceID(trusted: "bluetooth")
    public static let motion = ServiceID(trusted: "motion")
    public static let speechRecognition = ServiceID(trusted: "speechRecognition")
    public static let mediaLibrary = ServiceID(trusted: "mediaLibrary")
    public static let homeKit = ServiceID(trusted: "homeKit")
    public static let localNetwork = ServiceID(trusted: "localNetwork")
    public static let tracking = ServiceID(trusted: "tracking")
}
