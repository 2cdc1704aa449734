import Foundation
import Synchronization
import TestProcesses
import TestThreads
import Testing

/// Live: `ChildProcess` on real children (`sh`, `sleep`, `cat`): how they ended, bounded waits,
/// no zombie left behind, nothing inherited but the three standard descriptors.
@Suite(.timeLimit(.minutes(2)), .blocksItsThread) struct ChildProcessTests {
    @Test func anExitCodeAndAnEndingSignalAreToldApart() throws {
        let exited = try ChildProcess("/bin/sh", ["-c", "exit 3"])
        #expect(exited.wait(timeout: 10) == .exited(3))
        #expect(exited.termination?.status == 3)

        let signaled = try ChildProcess("/bin/sh", ["-c", "kill -TERM $$; sleep 10"])
        #expect(signaled.wait(timeout: 10) == .signaled(SIGTERM))
        #expect(signaled.termination?.status == 128 + SIGTERM)
        #expect(!signaled.isRunning)
    }

    @Test func runCollectsOutputAndErrorsAndFeedsInput() throws {
        let done = try ChildProcess.run(
            "/bin/sh", ["-c", #"cat; printf ' %s' "$GREETING"; echo oops >&2; exit 5"#],
            environment: ["GREETING": "hi"], input: "hello", timeout: 10)
        #expect(done.termination == .exited(5))
        #expect(done.standardOutput == "hello hi")
        #expect(done.standardError == "oops\n")
        #expect(!done.timedOut)
    }

    @Test func oneFileTakesOutputAndErrorsInTheOrderWritten() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = directory + "/log"
        let child = try ChildProcess(
            "/bin/sh", ["-c", "echo one; echo two >&2; echo three"], standardOutput: log, standardError: log)
        #expect(child.wait(timeout: 10) == .exited(0))
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "one\ntwo\nthree\n")
    }

    /// The bound holds on a child that sleeps; killed, it is reaped, and neither a second signal
    /// nor `waitpid` reaches its PID again.
    @Test func aBoundedWaitEndsOnASleepingChildWhichIsThenKilledAndReaped() throws {
        let child = try ChildProcess("/bin/sleep", ["600"])
        let started = Date()
        #expect(child.wait(timeout: 0.3) == nil)
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 0.3 && waited < 5, "waited \(waited) s")
        #expect(child.isRunning)

        #expect(child.killAndWait(timeout: 10) == .signaled(SIGKILL))
        #expect(!child.isRunning)
        #expect(!child.kill(SIGTERM), "a reaped PID is never signalled")
        #expect(Self.isGone(child.pid))

        let run = try ChildProcess.run("/bin/sleep", ["600"], timeout: 0.3)
        #expect(run.timedOut)
        #expect(run.termination == .signaled(SIGKILL))
    }

    /// What hung Foundation's `Process`: child B, started while a long-lived child A runs (A
    /// started at the same moment could hold a descriptor B's exit was seen by), exits at once,
    /// and its exit is seen while A still runs. Here from several threads at once, each starting
    /// an A and a B.
    @Test func aChildIsSeenToExitWhileAnotherStartedBesideItRuns() throws {
        let outcomes = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do {
                let long = try ChildProcess("/bin/sleep", ["600"])
                let short = try ChildProcess("/bin/sh", ["-c", "exit 7"])
                let ended = short.wait(timeout: 10)
                let outcome = ended == .exited(7) && long.isRunning ? "ok" : "\(String(describing: ended)) \(long.isRunning)"
                outcomes.withLock { $0.append(outcome) }
                long.killAndWait()
            } catch {
                outcomes.withLock { $0.append("\(error)") }
            }
        }
        #expect(outcomes.withLock { $0 } == Array(repeating: "ok", count: 8))
    }

    /// A child that exits by itself is reaped by its watching thread, with nobody asking; a
    /// running child's value, released, kills and reaps it.
    @Test func noZombieIsLeftBehind() throws {
        let exits = try ChildProcess("/bin/sh", ["-c", "exit 0"])
        let deadline = Date().addingTimeInterval(10)
        while !Self.isGone(exits.pid), Date() < deadline { usleep(10_000) }
        #expect(Self.isGone(exits.pid), "state: \(Self.state(exits.pid) ?? "none")")
        #expect(exits.termination == .exited(0))

        var pid: pid_t = 0
        do {
            let sleeping = try ChildProcess("/bin/sleep", ["600"])
            pid = sleeping.pid
            #expect(Self.state(pid) != nil && Self.state(pid) != "Z")
        }
        #expect(Self.isGone(pid), "state after release: \(Self.state(pid) ?? "none")")
    }

    /// A descriptor this process has open without close-on-exec (as another spawner's is for a
    /// moment) does not reach the child: only 0, 1 and 2 are open in it.
    @Test func theChildInheritsNoOtherDescriptor() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let file = open("/dev/zero", O_RDONLY)
        #expect(file >= 0)
        defer {
            close(ends[0])
            close(ends[1])
            close(file)
        }
        let listed = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"], timeout: 10)
        #expect(listed.status == 0, "\(listed.standardError)")
        let descriptors = Set(listed.standardOutput.split(whereSeparator: \.isNewline).map(String.init))
        #expect(descriptors == ["0", "1", "2"], "the child had \(descriptors.sorted()) open")
    }

    /// The child starts with no signal blocked and none of the standard ones (1-31) ignored,
    /// whatever the thread that starts it blocks and this process ignores. (glibc keeps 32 and 33
    /// for itself: no program can reset them.)
    @Test func theChildStartsWithDefaultSignals() throws {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR2)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let status = try ChildProcess.run("/bin/cat", ["/proc/self/status"], timeout: 10)
        #expect(Self.signalMask("SigBlk", in: status.standardOutput) == 0, "\(status.standardOutput)")
        #expect(Self.signalMask("SigIgn", in: status.standardOutput).map { $0 & 0x7fff_ffff } == 0, "\(status.standardOutput)")
    }

    /// The mask of signals on the `field` line of a `/proc/PID/status` text (bit n-1: signal n).
    static func signalMask(_ field: String, in status: String) -> UInt64? {
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
        return line.flatMap { UInt64($0.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces), radix: 16) }
    }

    @Test func aMissingExecutableIsAnError() {
        #expect(throws: ChildProcess.SpawnError.self) { try ChildProcess("/nonexistent/tool") }
    }

    /// The state letter in `/proc/PID/stat` (`Z` for a zombie), nil when there is no such process.
    static func state(_ pid: pid_t) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ").first.map(String.init)
    }

    /// True when `pid` is no child of this process any more (reaped: `waitpid` answers ECHILD).
    static func isGone(_ pid: pid_t) -> Bool {
        var siginfo = siginfo_t()
        return waitid(P_PID, id_t(pid), &siginfo, WEXITED | WNOHANG | WNOWAIT) == -1 && errno == ECHILD
    }

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("child-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
