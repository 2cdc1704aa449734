extension Authorization {
    /// The four statuses every service shares (SPEC §3).
    public enum Status: String, WireEnum {
        case notDetermined, restricted, denied, authorized
    }

    /// Why the authorization is what it is (SPEC §3).
    public enum Reason: String, WireEnum {
        case `default`, userConsent, userSet, policy, servicesDisabled, expired, reset, reinstall, purposeChanged
    }
}
