/// What a policy does (SPEC §4 Policies): `restrict` makes the status `restricted`;
/// `allow` pre-approves at a level. Restrict beats allow.
public enum PolicyEffect: String, Sendable, CaseIterable, Hashable {
    case restrict
    case allow
}
