/// An answer to a prompt (SPEC §4 prompt table).
public enum Choice: String, Sendable, CaseIterable, Hashable {
    case allow
    case deny
    case allowOnce
    case allowWhileUsing
    case keepWhileUsing
    case changeToAlways
    case selectItems
    case allowFull
    /// A location alert's "Keep Always": the grant stays as it is.
    case keepAlways
    /// A location alert's "Change to Only While Using": authorized whenInUse.
    case changeToWhileUsing
}
