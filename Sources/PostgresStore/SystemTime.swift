import Foundation
import PermissionDomain

/// The system's clock (`Date()`).
struct SystemTime: Clock {
    var now: Date { Date() }
}
