extension Rules {
    /// Whether `authorization` permits `required` of `service` (SPEC §11, AuthZEN): it is
    /// `authorized` at that level or a stronger one of the service's order (weakest first).
    /// Every other status (notDetermined, denied, restricted) denies; a provisional or once
    /// grant is authorized while it lasts, as the status read shows it.
    public static func permits(_ authorization: Authorization, _ required: Level, of service: ServiceDefinition) -> Bool {
        guard authorization.status == .authorized, let granted = authorization.level,
            let grantedRank = service.rank(of: granted), let requiredRank = service.rank(of: required)
        else { return false }
        return grantedRank >= requiredRank
    }
}
