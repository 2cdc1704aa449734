public import Foundation

extension PermissionService {
    /// The service's settings (`--prompt-ttl`, `--once-ttl`, SPEC §4; `--consent-session-ttl`,
    /// SPEC §10; `--max-grant-duration`, `--max-pending-prompts`, `--location-alert-intervals`,
    /// `--location-alert-threshold`, SPEC §11).
    public struct Configuration: Sendable {
        /// Seconds a prompt stays pending before it expires; default 600.
        public var promptTTL: TimeInterval
        /// Seconds an Allow Once grant lasts unless the session ends first; default 3600.
        public var onceTTL: TimeInterval
        /// Makes the id of a prompt created at the given time.
        public var makePromptID: @Sendable (Date) -> PromptID
        /// Seconds a consent session lasts from its creation; default 900.
        public var consentSessionTTL: TimeInterval
        /// The longest an expiring grant may last: its `until` is at most this many seconds
        /// ahead; default 31536000 (a year).
        public var maxGrantDuration: TimeInterval
        /// The most records (authorizations, prompts, location alert schedules and audit entries
        /// together) one user's export may hold (`--max-export-records`); beyond it the export is
        /// refused (``ExportTooLarge``) before any of them is read. Default 5000.
        public var maxExportRecords: Int = 5_000

        /// The rows an export reads per keyset page of each listing, and so the most of them it
        /// holds at once (``UserExport``). Default 500; at least 1.
        public var exportPageSize: Int = 500 {
            didSet { precondition(exportPageSize >= 1, "an export page holds at least one row") }
        }

        /// Seconds an ended prompt (answered, expired, cancelled) and an ended or expired consent
        /// session are kept after they end (`--ended-retention`), for the reads of its outcome;
        /// then the sweep deletes them (``purgeEnded(now:limit:)``). The audit log keeps what
        /// happened. 0 keeps them until their user is erased. Default 2592000 (30 days).
        public var endedRetention: TimeInterval = 2_592_000

        /// The most prompts an app may have pending for one user at once (SPEC §11 prompt
        /// hygiene); one more is refused with `tooManyPrompts`. In `maxPendingPromptsRange`;
        /// default 3.
        public var maxPendingPrompts: Int

        /// The values `maxPendingPrompts` may take.
        public static let maxPendingPromptsRange = 1...100

        /// When location alerts come (SPEC §11).
        public var locationAlerts: LocationAlertSettings

        public init(
            promptTTL: TimeInterval = 600, onceTTL: TimeInterval = 3600,
            makePromptID: @escaping @Sendable (Date) -> PromptID = Configuration.randomPromptID,
            consentSessionTTL: TimeInterval = 900, maxGrantDuration: TimeInterval = 31_536_000,
            maxPendingPrompts: Int = 3, locationAlerts: LocationAlertSettings = LocationAlertSettings()
        ) {
            precondition(maxGrantDuration > 0, "the maximum grant duration must be positive")
            precondition(
                Self.maxPendingPromptsRange.contains(maxPendingPrompts),
                "the most pending prompts per user and app must be in \(Self.maxPendingPromptsRange)")
            self.promptTTL = promptTTL
            self.onceTTL = onceTTL
            self.makePromptID = makePromptID
            self.consentSessionTTL = consentSessionTTL
            self.maxGrantDuration = maxGrantDuration
            self.maxPendingPrompts = maxPendingPrompts
            self.locationAlerts = locationAlerts
        }

        /// `<12 hex digits of milliseconds>-<16 random hex digits>`: unique, and ordered by creation time.
        @Sendable
        public static func randomPromptID(_ date: Date) -> PromptID {
            var generator = SystemRandomNumberGenerator()
            let random = generator.next() as UInt64
            let millis = UInt64(clamping: max(0, date.millisecondsSince1970))
            return PromptID(trusted: hex(millis, digits: 12) + "-" + hex(random, digits: 16))
        }

        private static func hex(_ value: UInt64, digits: Int) -> String {
            let alphabet: [UInt8] = Array("0123456789abcdef".utf8)
            var bytes = [UInt8](repeating: 0x30, count: digits)
            var rest = value
            for index in stride(from: digits - 1, through: 0, by: -1) {
                bytes[index] = alphabet[Int(rest & 0xF)]
                rest >>= 4
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
