import PermissionDomain
import TestSupport
import Testing

/// SPEC §11 (AuthZEN): a decision permits a level when the effective status is authorized at
/// it or above in the service's order; the batch semantics stop where the specification says.
@Suite struct EvaluationRuleTests {
    static func authorization(_ status: AuthorizationStatus, _ level: Level?, service: ServiceID = .location) -> Authorization {
        Authorization(
            user: Fixtures.user, app: Fixtures.app, service: service, status: status, level: level, provisional: false,
            once: false, expiresAt: nil, reason: .userConsent, purpose: nil, updatedAt: nil, version: 1)
    }

    @Test(
        arguments: [
            (AuthorizationStatus.authorized, Level.whenInUse, Level.whenInUse, true),
            (.authorized, .always, .whenInUse, true),
            (.authorized, .always, .always, true),
            (.authorized, .whenInUse, .always, false),
            (.denied, nil, .whenInUse, false),
            (.restricted, nil, .whenInUse, false),
            (.notDetermined, nil, .whenInUse, false),
        ] as [(AuthorizationStatus, Level?, Level, Bool)])
    func locationLevelsInOrder(_ status: AuthorizationStatus, _ granted: Level?, _ required: Level, _ permits: Bool) {
        #expect(Rules.permits(Self.authorization(status, granted), required, of: Fixtures.service(.location)) == permits)
    }

    @Test func photosHasThreeLevelsAndALevelOutsideTheServiceNeverPermits() {
        let photos = Fixtures.service(.photos)
        let limited = Self.authorization(.authorized, .limited, service: .photos)
        #expect(Rules.permits(limited, .addOnly, of: photos))
        #expect(Rules.permits(limited, .limited, of: photos))
        #expect(!Rules.permits(limited, .full, of: photos))
        #expect(!Rules.permits(limited, .always, of: photos), "not a level of photos")
    }

    @Test func theSemanticsStopAtTheDecidingItem() {
        #expect(!EvaluationSemantic.executeAll.stops(after: true) && !EvaluationSemantic.executeAll.stops(after: false))
        #expect(EvaluationSemantic.denyOnFirstDeny.stops(after: false) && !EvaluationSemantic.denyOnFirstDeny.stops(after: true))
        #expect(EvaluationSemantic.permitOnFirstPermit.stops(after: true))
        #expect(!EvaluationSemantic.permitOnFirstPermit.stops(after: false))
        #expect(EvaluationSemantic.allCases.map(\.rawValue) == ["execute_all", "deny_on_first_deny", "permit_on_first_permit"])
    }
}
