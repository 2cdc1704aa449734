import Foundation
import PermissionDomain
import Synchronization

/// Validated ids for tests; the literals are well-formed.
func user(_ raw: String) throws -> UserID { try UserID(raw) }
func app(_ raw: String) throws -> AppID { try AppID(raw) }
func service(_ raw: String) throws -> ServiceID { try ServiceID(raw) }
func purpose(_ raw: String) throws -> PurposeString { try PurposeString(raw) }

/// A fixed instant, whole milliseconds.
let epoch = Date(millisecondsSince1970: 1_795_000_000_000)

extension AuditEntry {
    /// An authorization change entry of `user`'s `app` and `service`.
    static func change(_ user: UserID, _ app: AppID, _ service: ServiceID, at: Date = epoch, action: AuditAction = .authorizationSet)
        -> AuditEntry
    {
        let actor = Actor(keyId: "k1", role: "consent")
        let (from, to) = (AuthorizationSnapshot(status: .notDetermined), AuthorizationSnapshot(status: .denied))
        return AuditEntry(
            at: at, actor: actor, action: action, user: user, app: app, service: service, from: from, to: to, reason: .userSet,
            requestId: "req-1")
    }
}

/// Runs `body(index)` on `count` threads at once and waits for all of them (two minutes at
/// most, then the test fails rather than hangs).
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let finished = DispatchSemaphore(value: 0)
    for index in 0..<count {
        Thread {
            body(index)
            finished.signal()
        }.start()
    }
    let deadline = DispatchTime.now() + 120
    let all = (0..<count).allSatisfy { _ in finished.wait(timeout: deadline) == .success }
    precondition(all, "threads still running after two minutes")
}

/// Values appended from several threads.
final class Collected<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    func append(_ element: Element) { storage.withLock { $0.append(element) } }

    var elements: [Element] { storage.withLock { $0 } }
}

extension AuditEntry {
    /// The entry without what differs between two stores given the same entries: its chain
    /// links and its pseudonym (each seal has a random nonce, each store its own user keys).
    var withoutChainLinks: AuditEntry {
        var entry = self
        (entry.hash, entry.prevHash, entry.pseudonym) = (nil, nil, nil)
        return entry
    }
}
