import Foundation
import PermissionWire

/// Sample values of every shape, with millisecond-aligned dates (the wire keeps milliseconds).
enum Fixtures {
    static let t0 = Timestamp.date(milliseconds: 1_795_341_600_000)  // 2026-11-22T10:00:00.000Z
    static let t1 = Timestamp.date(milliseconds: 1_795_342_200_123)

    static let authorization = Authorization(
        user: "u42", app: "com.example.maps", service: "location", status: .authorized, level: "whenInUse",
        reason: .userConsent, purpose: "Your location is used to show nearby stops.", updatedAt: t0, version: 3)

    static let undetermined = Authorization(
        user: "u42", app: "com.example.maps", service: "location", status: .notDetermined,
        reason: .default, updatedAt: t0, version: 0)

    static let onceGrant = Authorization(
        user: "u:7@x+y", app: "com.example.maps", service: "location", status: .authorized, level: "whenInUse",
        provisional: false, once: true, expiresAt: t1, reason: .userConsent, purpose: "Stops \"nearby\"",
        updatedAt: t1, version: 9_007_199_254_740_993)

    static let prompt = Prompt(
        id: "p_01J", user: "u42", app: "com.example.maps", service: "location", kind: .request, level: "always",
        options: ["allowOnce", "allowWhileUsing", "deny"], purpose: "Your location is used to show nearby stops.",
        purposeKey: "NSLocationWhenInUseUsageDescription", state: .pending, createdAt: t0, expiresAt: t1)

    static let answeredPrompt = Prompt(
        id: "p_02", user: "u42", app: "com.example.cam", service: "camera", kind: .request, level: "full",
        options: ["allow", "deny"], purpose: "Scan receipts", purposeKey: "NSCameraUsageDescription",
        state: .answered, createdAt: t0, expiresAt: t1, answeredAt: t1, choice: "allow")

    static let policy = Policy(id: "no-camera", service: "camera", user: "u42", effect: .restrict)
    static let allowPolicy = Policy(id: "mdm-1", service: "location", app: "com.example.fleet", effect: .allow, level: "always")

    static let app = App(
        id: "com.example.maps", name: "Maps",
        purposeStrings: ["NSLocationWhenInUseUsageDescription": "Nearby stops ü 🚏"], updatedAt: t0)

    static let service = ServiceDefinition(
        id: "location", levels: ["whenInUse", "always"],
        purposeKeys: [
            "whenInUse": ["NSLocationWhenInUseUsageDescription"],
            "always": ["NSLocationWhenInUseUsageDescription", "NSLocationAlwaysAndWhenInUseUsageDescription"],
        ],
        builtin: true, specials: ["allowOnce", "provisionalAlways"])

    static let auditEntry = AuditEntry(
        seq: 17, at: t1, actor: .init(keyId: "k_1", role: "consent"), action: "prompt.answered",
        user: "u42", app: "com.example.maps", service: "location",
        from: .init(status: .notDetermined), to: .init(status: .authorized, level: "always", provisional: true),
        reason: "userConsent", purpose: "Nearby", promptId: "p_01J", requestId: "r-1")

    static let systemEntry = AuditEntry(
        seq: 18, at: t1, actor: .init(role: "system"), action: "prompt.expired",
        detail: ["promptId": "p_9"], hash: "ab12")

    static let apiKey = APIKey(
        id: "k_1", role: .app, app: "com.example.maps", name: "maps backend", createdAt: t0)

    static let problem = Problem(
        .missingPurposeString, detail: "no purpose string for NSLocationAlwaysAndWhenInUseUsageDescription",
        requestId: "r-9", instance: "/v1/users/u42/apps/com.example.maps/authorizations/location/request",
        key: "NSLocationAlwaysAndWhenInUseUsageDescription")
}
