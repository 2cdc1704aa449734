import Foundation

/// The permission flows of SPEC §4 over a `PermissionStore`: each flow is one `store.write`
/// that reads the current state, applies a pure rule (`Rules`), saves, and appends one audit
/// entry per change (SPEC §5). Reads compute the effective view. No other I/O; time comes
/// from the injected `Clock`.
public struct PermissionService: Sendable {
    public let store: any PermissionStore
    public let clock: any Clock
    public let configuration: Configuration

    /// - Parameters:
    ///   - store: where the state lives.
    ///   - clock: the source of the current time.
    ///   - configuration: the prompt and once TTLs, and how prompt ids are made.
    public init(store: any PermissionStore, clock: any Clock, configuration: Configuration = Configuration()) {
        self.store = store
        self.clock = clock
        self.configuration = configuration
    }

    /// The current time, truncated to whole milliseconds (the stored resolution).
    var now: Date { clock.now.truncatedToMilliseconds }
}
