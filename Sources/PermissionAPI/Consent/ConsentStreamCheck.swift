import Foundation
import PermissionDomain

/// Keeps a consent page's event stream from outliving its session (SPEC §10): asked before
/// every write, it reads the session again, so a stream ends once the session is ended
/// (sign-out, `DELETE /v1/consent-sessions/{id}`, whose write wakes the stream) or expires.
/// The stored session decides, not the one the stream opened with: its user may have moved
/// its end later since ("Stay Signed In").
struct ConsentStreamCheck {
    let permissions: PermissionService
    let session: ConsentSession

    /// Whether the session is still live; false ends the stream.
    /// - Throws: when the store cannot be read.
    func isStillValid() throws -> Bool {
        try permissions.consentSession(id: session.id)?.isLive(at: permissions.clock.now) ?? false
    }
}
