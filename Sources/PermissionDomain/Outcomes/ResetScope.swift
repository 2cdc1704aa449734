/// Which services a reset covers (SPEC §4 Reset, `tccutil reset SERVICE`).
public enum ResetScope: Hashable, Sendable {
    case all
    case service(ServiceID)

    /// Parses `all` or a service id.
    /// - Throws: `PermissionError.invalidArgument(field: "service", ...)`.
    public init(_ raw: String) throws(PermissionError) {
        self = raw == "all" ? .all : .service(try ServiceID(raw))
    }
}
