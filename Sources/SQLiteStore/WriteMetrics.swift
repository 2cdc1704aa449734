import Synchronization

/// Group-commit measurements of the `DatabaseWriter`, for `/metrics`: how long each write
/// transaction took from `BEGIN IMMEDIATE` to the end of `COMMIT` (the WAL fsync included,
/// https://www.sqlite.org/wal.html) and how many bodies it carried. Recorded once per batch.
/// `Sendable` as checked by the compiler: the counters live in a `Mutex`.
package final class WriteMetrics: Sendable {
    /// Transaction duration bucket upper bounds, in seconds.
    package static let durationBounds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
    ]
    /// Batch size bucket upper bounds, in writes per transaction.
    package static let batchBounds: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256]

    /// Per-bucket counts (not cumulative; the last is the overflow bucket) and sums.
    package struct Snapshot: Sendable {
        package var durationCounts = [UInt64](repeating: 0, count: WriteMetrics.durationBounds.count + 1)
        package var durationSumSeconds = 0.0
        package var batchCounts = [UInt64](repeating: 0, count: WriteMetrics.batchBounds.count + 1)
        package var batchSum = 0.0
    }

    private let current = Mutex(Snapshot())

    package init() {}

    /// Records one committed transaction.
    /// - Parameters:
    ///   - batchSize: the bodies committed together.
    ///   - nanoseconds: from `BEGIN` to the end of `COMMIT`.
    package func record(batchSize: Int, nanoseconds: UInt64) {
        let seconds = Double(nanoseconds) / 1e9
        let size = Double(batchSize)
        let durationBucket = Self.durationBounds.firstIndex { seconds <= $0 } ?? Self.durationBounds.count
        let batchBucket = Self.batchBounds.firstIndex { size <= $0 } ?? Self.batchBounds.count
        current.withLock { current in
            current.durationCounts[durationBucket] += 1
            current.durationSumSeconds += seconds
            current.batchCounts[batchBucket] += 1
            current.batchSum += size
        }
    }

    /// The counters so far.
    package var snapshot: Snapshot {
        current.withLock { $0 }
    }
}
