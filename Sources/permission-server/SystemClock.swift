import Foundation
import PermissionDomain

/// The wall clock, injected into the service by `main` (the domain never reads the time itself).
struct SystemClock: Clock {
    var now: Date { Date() }
}
