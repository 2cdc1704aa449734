/// The rights of each role, as one pure table (SPEC §6). The API checks every request
/// against it in one place; the table in docs/access-control.md is this table.
public enum AccessMatrix {
    /// How far `role` holds `right`.
    public static func grant(_ role: Role, _ right: AccessRight) -> AccessGrant {
        switch role {
        case .admin:
            return .granted
        case .consent:
            switch right {
            case .open, .readAuthorization, .evaluate, .listAuthorizations, .setAuthorization, .lifecycle, .readPrompts,
                .decide, .readSettings, .writeSettings, .readCatalogue, .export:
                return .granted
            case .requestAccess, .admin, .audit, .readEvents, .ownHistory, .consentSession:
                return .denied
            case .consentSessions, .eraseUser:
                return .granted
            }
        case .app:
            switch right {
            case .open: return .granted
            case .readAuthorization, .evaluate, .listAuthorizations, .requestAccess, .lifecycle, .readEvents:
                return .ownApp
            case .setAuthorization, .readPrompts, .decide, .readSettings, .writeSettings, .readCatalogue, .admin,
                .audit, .consentSessions, .ownHistory, .consentSession, .eraseUser, .export:
                return .denied
            }
        case .auditor:
            switch right {
            case .open, .audit, .readEvents: return .granted
            default: return .denied
            }
        case .user:
            // A consent session acts on its own user only, and only through `/consent/` (its
            // cookie is no credential on `/v1`).
            switch right {
            case .open: return .granted
            case .readAuthorization, .listAuthorizations, .setAuthorization, .readPrompts, .decide, .readSettings,
                .writeSettings, .ownHistory, .consentSession, .export:
                return .ownUser
            case .requestAccess, .evaluate, .lifecycle, .readCatalogue, .admin, .audit, .readEvents, .consentSessions,
                .eraseUser:
                return .denied
            }
        }
    }

    /// Whether `role` may post lifecycle `event`: an app key only `sessionEnded` and
    /// `reinstalled` (SPEC §6); `backgroundLocationUsed` may prompt, which is the user's side.
    public static func mayPost(_ event: LifecycleEvent, as role: Role) -> Bool {
        switch grant(role, .lifecycle) {
        case .denied: return false
        case .granted: return true
        case .ownApp: return event == .sessionEnded || event == .reinstalled
        case .ownUser: return false
        }
    }
}
