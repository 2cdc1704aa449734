#if canImport(Glibc)
internal import Glibc
#endif

/// Reads `CLOCK_MONOTONIC` in nanoseconds (vDSO, no syscall): deadlines never jump with the wall clock.
enum MonotonicClock {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
