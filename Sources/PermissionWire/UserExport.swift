public import Foundation

/// Everything the service keeps about one user (`GET /v1/users/{user}/export`, GDPR Art. 15
/// and 20), read in one consistent snapshot: the authorizations as consent records with the
/// fields of ISO/IEC TS 27560 (record id, principal, purpose and its language, data category,
/// controller, times, state, how to withdraw), the prompts, the settings, the location alert
/// schedules (background uses of location per hour, no places), and every audit entry about the
/// user, readable and as stored, with the audit chain head at export time.
///
/// `audit[].stored` holds the entry's hashed values exactly as the server stores them, one for
/// each of `auditEncoding.columns`; with `auditEncoding.tag` they give the bytes the entry's
/// hash is taken of (docs/audit-chain.md), so an export can be verified offline
/// (`scripts/verify-export.py`) without knowing the storage format.
public struct UserExport: Codable, Sendable, Equatable {
    /// The name of this document's schema.
    public static let schemaName = "permission-user-export"
    /// The version of this document's schema.
    public static let schemaVersion = 1
    /// The standard the consent records follow.
    public static let standard = "ISO/IEC TS 27560:2023"

    public var schema: Schema
    /// The user (the data principal).
    public var user: String
    public var exportedAt: Date
    /// The audit chain head when the snapshot was read: every record and entry below is as of it.
    public var head: Head
    /// How `audit[].stored` is hashed.
    public var auditEncoding: AuditEncoding
    /// One per authorization record of the user, ordered by (app, service).
    public var consentRecords: [ConsentRecord]
    /// The user's prompts in their effective state, in creation order.
    public var prompts: [Prompt]
    /// The user's settings (the defaults when never changed).
    public var settings: UserSettings
    /// The location alert schedule of each app the user gave Always that reported background
    /// uses, ordered by app (absent only in documents of servers from before location alerts).
    public var locationAlerts: [LocationAlert]?
    /// Every audit entry about the user, in seq order, none after `head.seq`.
    public var audit: [AuditItem]

    public init(
        schema: Schema = Schema(), user: String, exportedAt: Date, head: Head, auditEncoding: AuditEncoding,
        consentRecords: [ConsentRecord], prompts: [Prompt], settings: UserSettings,
        locationAlerts: [LocationAlert]? = [], audit: [AuditItem]
    ) {
        self.locationAlerts = locationAlerts
        self.schema = schema
        self.user = user
        self.exportedAt = exportedAt
        self.head = head
        self.auditEncoding = auditEncoding
        self.consentRecords = consentRecords
        self.prompts = prompts
        self.settings = settings
        self.audit = audit
    }

    /// What the service keeps towards an app's location alerts (SPEC §11): when its first
    /// background use was reported, the alerts shown since the schedule (re)started, the last
    /// one, the uses since it, the uses per hour of the last 3 days, and when the next alert is
    /// due (absent while none is).
    public struct LocationAlert: Codable, Sendable, Equatable {
        public var app: String
        public var startedAt: Date
        public var alertsShown: Int
        public var lastAlertAt: Date?
        public var usesSinceAlert: Int
        public var recentUses: [HourlyUses]
        public var nextAlertAt: Date?

        public init(
            app: String, startedAt: Date, alertsShown: Int, lastAlertAt: Date?, usesSinceAlert: Int,
            recentUses: [HourlyUses], nextAlertAt: Date?
        ) {
            self.app = app
            self.startedAt = startedAt
            self.alertsShown = alertsShown
            self.lastAlertAt = lastAlertAt
            self.usesSinceAlert = usesSinceAlert
            self.recentUses = recentUses
            self.nextAlertAt = nextAlertAt
        }

        /// The background uses reported for the hour starting at `hour`.
        public struct HourlyUses: Codable, Sendable, Equatable {
            public var hour: Date
            public var count: Int

            public init(hour: Date, count: Int) {
                self.hour = hour
                self.count = count
            }
        }
    }

    /// The document's schema: its name, version and the standard its records follow.
    public struct Schema: Codable, Sendable, Equatable {
        public var name: String
        public var version: Int
        public var conformsTo: String

        public init(
            name: String = UserExport.schemaName, version: Int = UserExport.schemaVersion,
            conformsTo: String = UserExport.standard
        ) {
            self.name = name
            self.version = version
            self.conformsTo = conformsTo
        }
    }

    /// The last audit entry of the snapshot: `seq` 0 and 64 zeros for an empty log.
    public struct Head: Codable, Sendable, Equatable {
        public var seq: Int64
        public var hash: String

        public init(seq: Int64, hash: String) {
            self.seq = seq
            self.hash = hash
        }
    }

    /// The canonical encoding of the stored values: `tag`, then each of `columns` as NULL
    /// (`0x00`), INTEGER (`0x01` + 8 bytes big-endian) or TEXT (`0x02` + 4-byte big-endian
    /// length + UTF-8); the hash is the lowercase hex SHA-256 of it; the first entry's previous
    /// hash is `genesis`.
    public struct AuditEncoding: Codable, Sendable, Equatable {
        public var tag: String
        public var columns: [String]
        public var genesis: String
        public var digest: String

        public init(tag: String, columns: [String], genesis: String, digest: String = "sha256") {
            self.tag = tag
            self.columns = columns
            self.genesis = genesis
            self.digest = digest
        }
    }

    /// One authorization as an ISO/IEC TS 27560 consent record.
    public struct ConsentRecord: Codable, Sendable, Equatable {
        /// The record's identifier: its resource path in this API.
        public var recordId: String
        /// The data principal: the user.
        public var principal: String
        /// The party the consent is given to: the app.
        public var controller: Party
        /// The data category / processing: the service (`camera`, `location`, ...).
        public var dataCategory: String
        /// The level granted, when `state` is `authorized`.
        public var level: String?
        /// The purpose text shown when the user decided, absent when none was.
        public var purpose: Purpose?
        /// The effective status now: `authorized`, `denied`, `notDetermined` or `restricted`.
        public var state: Authorization.Status
        public var reason: Authorization.Reason
        /// When the record got its current state; absent for one never written.
        public var givenAt: Date?
        /// When the grant lapses, absent for one without an end.
        public var expiresAt: Date?
        /// Grows with every change of the record.
        public var version: Int64
        /// How the user withdraws it; absent while a policy decides the record (`reason`
        /// `policy`), which the user cannot change.
        public var withdrawal: Withdrawal?

        public init(
            recordId: String, principal: String, controller: Party, dataCategory: String, level: String? = nil,
            purpose: Purpose? = nil, state: Authorization.Status, reason: Authorization.Reason, givenAt: Date? = nil,
            expiresAt: Date? = nil, version: Int64, withdrawal: Withdrawal?
        ) {
            self.recordId = recordId
            self.principal = principal
            self.controller = controller
            self.dataCategory = dataCategory
            self.level = level
            self.purpose = purpose
            self.state = state
            self.reason = reason
            self.givenAt = givenAt
            self.expiresAt = expiresAt
            self.version = version
            self.withdrawal = withdrawal
        }
    }

    /// The app a consent record is given to; `name` absent for an app never registered.
    public struct Party: Codable, Sendable, Equatable {
        public var id: String
        public var name: String?

        public init(id: String, name: String? = nil) {
            self.id = id
            self.name = name
        }
    }

    /// A purpose text and its language tag (absent for the app's base string).
    public struct Purpose: Codable, Sendable, Equatable {
        public var text: String
        public var language: String?

        public init(text: String, language: String? = nil) {
            self.text = text
            self.language = language
        }
    }

    /// How to withdraw a consent: the consent settings page, or the API call.
    public struct Withdrawal: Codable, Sendable, Equatable {
        /// The consent page where the user changes it (reached through a consent link).
        public var page: String
        public var method: String
        /// The API path that revokes it.
        public var path: String

        public init(page: String, method: String, path: String) {
            self.page = page
            self.method = method
            self.path = path
        }
    }

    /// One audit entry about the user: readable (`entry`) and as stored and hashed (`stored`).
    public struct AuditItem: Codable, Sendable, Equatable {
        public var seq: Int64
        /// The entry's hash as stored (absent only if the row was emptied outside the server).
        public var hash: String?
        /// The previous entry's hash as stored (`auditEncoding.genesis` for seq 1).
        public var prevHash: String?
        public var entry: AuditEntry
        /// The stored values, one for each of `auditEncoding.columns`, in its order.
        public var stored: [StoredValue]

        public init(seq: Int64, hash: String?, prevHash: String?, entry: AuditEntry, stored: [StoredValue]) {
            self.seq = seq
            self.hash = hash
            self.prevHash = prevHash
            self.entry = entry
            self.stored = stored
        }
    }

    /// One stored value: JSON `null`, an integer or a string.
    public enum StoredValue: Codable, Sendable, Equatable {
        case null
        case integer(Int64)
        case text(String)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let number = try? container.decode(Int64.self) {
                self = .integer(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .integer(let number): try container.encode(number)
            case .text(let string): try container.encode(string)
            }
        }
    }
}
