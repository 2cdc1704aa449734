package import Foundation

extension Process {
    /// Polls until the process exits or `timeout` seconds pass; true when it exited.
    package func waitForExit(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }
}
