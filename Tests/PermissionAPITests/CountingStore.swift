import PermissionDomain
import Synchronization
import Testing

/// A store that is another one (every call forwarded), for tests to look at or hold up one of
/// its calls: subclasses override that call alone.
class ForwardingStore: PermissionStore, @unchecked Sendable {
    // @unchecked: `base` is immutable and Sendable; subclasses keep their state in mutexes.
    let base: any PermissionStore

    init(_ base: any PermissionStore) { self.base = base }

    func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T { try base.read(body) }
    func openSnapshot() throws -> any PermissionSnapshot { try base.openSnapshot() }
    func write<T: Sendable>(_ body: @Sendable (any PermissionWriter) throws -> T) throws -> T { try base.write(body) }
    func visibleRevision() throws -> Int64 { try base.visibleRevision() }
    func keyFingerprint(ofSecretHash secretHash: [UInt8]) -> String { base.keyFingerprint(ofSecretHash: secretHash) }
    func acknowledgedRevision() throws -> Int64 { try base.acknowledgedRevision() }
    func awaitRevision(_ revision: Int64, timeout: Duration) throws -> Bool {
        try base.awaitRevision(revision, timeout: timeout)
    }
    func committedRevision() throws -> Int64 { try base.committedRevision() }
    func answersFromMemory(user: UserID, app: AppID, service: ServiceID) -> Bool {
        base.answersFromMemory(user: user, app: app, service: service)
    }
    var readsMayWait: Bool { base.readsMayWait }
    var memoryIsFresh: Bool { base.memoryIsFresh }
    func observeChanges(_ observer: @escaping @Sendable (VisibleChanges) -> Void) { base.observeChanges(observer) }
}

/// A store whose reads and writes are counted, for tests of how often the API reads or
/// writes; everything else is the store's own.
final class CountingStore: ForwardingStore, @unchecked Sendable {
    let reads = Mutex(0)
    let writes = Mutex(0)

    override func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T {
        reads.withLock { $0 += 1 }
        return try base.read(body)
    }

    override func write<T: Sendable>(_ body: @Sendable (any PermissionWriter) throws -> T) throws -> T {
        writes.withLock { $0 += 1 }
        return try base.write(body)
    }
}

extension TestApp {
    /// A TestApp whose application is given its store through `wrap` (a ``ForwardingStore``
    /// that counts or holds up calls), and that wrapper.
    static func serving<Wrapper: ForwardingStore>(
        through wrap: @escaping @Sendable (any PermissionStore) -> Wrapper
    ) throws -> (app: TestApp, store: Wrapper) {
        let made = Mutex<Wrapper?>(nil)
        let app = try TestApp(serving: { store in
            let wrapped = wrap(store)
            made.withLock { $0 = wrapped }
            return wrapped
        })
        return (app, try #require(made.withLock { $0 }))
    }
}
