import Dispatch
import Foundation
import Logging
import SQLiteStore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Loads the stored authorizations into the read cache in the background after the server
/// starts listening (``SQLitePermissionStore/warmReadCache(pageSize:shouldStop:progress:)``),
/// logging its progress every 5 seconds and the outcome; ``stop()`` ends it early at shutdown.
/// At the end it hands the memory the warm-up's pages used back to the system (`malloc_trim(3)`):
/// glibc keeps freed memory in the warm-up thread's arena otherwise, resident for good.
final class ReadCacheWarmer: Sendable {
    private let store: SQLitePermissionStore
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(store: SQLitePermissionStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Starts the warm-up on a background queue.
    func start() {
        DispatchQueue.global(qos: .utility).async { [self] in
            defer { finished.signal() }
            run()
            Self.releaseFreedMemory()
        }
    }

    /// Asks the warm-up to stop after its current page and waits until it has.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
        finished.signal()  // a second stop() returns at once
    }

    private func run() {
        let started = DispatchTime.now().uptimeNanoseconds
        var lastLog = started
        logger.info("warming the read cache")
        do {
            let result = try store.warmReadCache(shouldStop: { stopping.load(ordering: .relaxed) }) { loaded in
                let now = DispatchTime.now().uptimeNanoseconds
                if now - lastLog >= 5_000_000_000 {
                    lastLog = now
                    logger.info("warming the read cache", metadata: ["records": "\(loaded)"])
                }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            var metadata: Logger.Metadata = [
                "records": "\(result.loaded)", "seconds": "\(String(format: "%.2f", seconds))",
            ]
            if result.skipped > 0 { metadata["skipped"] = "\(result.skipped)" }
            if result.stopped {
                logger.info("read cache warm-up stopped", metadata: metadata)
            } else if result.full {
                logger.warning(
                    "read cache full before the end of the table; raise --read-cache-entries to keep every record",
                    metadata: metadata)
            } else {
                logger.info("read cache warmed", metadata: metadata)
            }
        } catch {
            if stopping.load(ordering: .relaxed) { return }  // the store closed under it
            logger.warning("read cache warm-up failed; status reads fill it instead", metadata: ["error": "\(error)"])
        }
    }

    /// Returns the memory `malloc` holds free, in every arena, to the system (`malloc_trim(3)`);
    /// does nothing where the C library has no such call. Looked up by name: `malloc.h` is not
    /// part of the Glibc module.
    static func releaseFreedMemory() {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }
}
