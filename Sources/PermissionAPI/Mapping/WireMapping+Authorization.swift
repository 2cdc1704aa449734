import Foundation
import PermissionDomain
import PermissionWire

/// Domain values → wire shapes (openapi.yaml). Field for field; no rules here.
enum WireMapping {
    /// The instant reported as `updatedAt` for a record never written (version 0).
    static let neverUpdated = Date(timeIntervalSince1970: 0)

    static func authorization(_ value: PermissionDomain.Authorization) -> Wire.Authorization {
        Wire.Authorization(
            user: value.user.rawValue, app: value.app.rawValue, service: value.service.rawValue,
            status: status(value.status), level: value.level?.rawValue, provisional: value.provisional,
            once: value.once, expiresAt: value.expiresAt, reason: reason(value.reason),
            purpose: value.purpose?.rawValue, purposeLanguage: value.purposeLanguage?.rawValue,
            purposeChanged: value.purposeChanged ? true : nil, updatedAt: value.updatedAt ?? neverUpdated, version: value.version)
    }

    static func status(_ value: AuthorizationStatus) -> Wire.Authorization.Status {
        switch value {
        case .notDetermined: .notDetermined
        case .restricted: .restricted
        case .denied: .denied
        case .authorized: .authorized
        }
    }

    static func reason(_ value: PermissionDomain.Reason) -> Wire.Authorization.Reason {
        switch value {
        case .default: .default
        case .userConsent: .userConsent
        case .userSet: .userSet
        case .policy: .policy
        case .servicesDisabled: .servicesDisabled
        case .expired: .expired
        case .reset: .reset
        case .reinstall: .reinstall
        case .purposeChanged: .purposeChanged
        }
    }

    /// The wire status as the domain's.
    static func status(_ value: Wire.Authorization.Status) -> AuthorizationStatus {
        switch value {
        case .notDetermined: .notDetermined
        case .restricted: .restricted
        case .denied: .denied
        case .authorized: .authorized
        }
    }
}
