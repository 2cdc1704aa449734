import Synchronization

/// The requests refused with `422 missing-purpose-string` (SPEC §4: "logged and counted"), by the
/// purpose key the app lacked, for `/metrics` (`permission_missing_purpose_strings_total`): an
/// operator sees which keys apps ship without. The keys come from the service catalogue, so
/// their number is small; past ``maximumKeys`` distinct keys the rest count under `_other`
/// (no purpose key has an underscore, so it names none).
public final class PurposeStringRefusals: Sendable {
    /// Most distinct keys counted apart.
    static let maximumKeys = 256
    /// The label of the keys past ``maximumKeys``.
    static let overflowLabel = "_other"
    private let counts = Mutex<[String: UInt64]>([:])

    init() {}

    /// Counts one refusal for `key`.
    func record(_ key: String) {
        counts.withLock { counts in
            let label = counts[key] != nil || counts.count < Self.maximumKeys ? key : Self.overflowLabel
            counts[label, default: 0] += 1
        }
    }

    /// The refusals so far, by key, in key order.
    public var byKey: [(key: String, count: UInt64)] {
        counts.withLock { $0.map { (key: $0.key, count: $0.value) } }.sorted { $0.key < $1.key }
    }
}
