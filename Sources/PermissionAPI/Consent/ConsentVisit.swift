import Foundation
import PermissionDomain

/// A request of a live consent session: the session, the caller it is (role `user`, bound to
/// the session's user) and the CSRF token its forms carry.
struct ConsentVisit: Sendable {
    let session: ConsentSession
    let csrfToken: String
    /// When the request was authenticated: a page says how long its session has left from here.
    let at: Date

    var principal: Principal { Principal(session: session) }
    var user: UserID { session.user }
}
