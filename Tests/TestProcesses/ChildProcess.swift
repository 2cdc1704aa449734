import Foundation
package import Glibc

/// A child process of the tests, started with `posix_spawn` and waited for and signalled by its
/// PID only: the tests' one way to start a program (the built server, `permctl`, curl, Python,
/// `initdb`).
///
/// Foundation's `Process` is not used. On Linux it learns that a child ended when a socket it
/// leaves open in the child closes; a process another test starts at the same moment (a server,
/// PostgreSQL) can inherit that socket before it is close-on-exec and keep it open, and then
/// `waitUntilExit()` waits as long as that other process lives while the child it waits for stays
/// a zombie. Here:
/// - the child gets standard input from a file or `/dev/null`, standard output and error
///   appended to files (or `/dev/null`), and no other descriptor of this process
///   (`posix_spawn_file_actions_addclosefrom_np(3)`); its signal mask is empty and every signal
///   has its default action, as a shell would start it;
/// - a thread of its own waits for the child's exit without reaping it
///   (`waitid(P_PID, pid, WEXITED | WNOWAIT)`) and then reaps it at once with
///   `waitpid(pid, WNOHANG)`, so a child that ends is never left a zombie (swift-testing's
///   exit-test monitor spins while any child of this process is one), and ``isRunning`` and
///   ``wait(timeout:)`` reap it the same way;
/// - the status is kept once reaped, so the PID is never waited for twice, and ``kill(_:)``
///   sends a signal only while the child is not yet reaped, under the same lock as the reaping:
///   an exited child that is not reaped keeps its PID, so the signal can never reach a process
///   that reused it;
/// - released, it kills a child that still runs with SIGKILL and reaps it, waiting at most 10 s.
///
/// The child stays in this process's process group: a Ctrl-C or a `timeout` that signals the
/// test run's group reaches the servers it started too.
package final class ChildProcess: Sendable {
    /// How a reaped child ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this code (0-255).
        case exited(Int32)
        /// A signal ended it (SIGKILL: 9).
        case signaled(Int32)
        /// Something else reaped it (a wait for any child elsewhere in this process): how it
        /// ended is unknown.
        case reapedElsewhere

        /// The exit code, or 128 plus the signal's number, as a shell's `$?` reports them
        /// (-1 when unknown).
        package var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            case .reapedElsewhere: -1
            }
        }

        package var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "signal \(signal) (\(String(cString: strsignal(signal))))"
            case .reapedElsewhere: "reaped elsewhere"
            }
        }

        /// The status `waitpid(2)` gave: `WIFEXITED`/`WEXITSTATUS`, else `WTERMSIG` (no stopped
        /// child is reported: the waits here do not ask for `WUNTRACED`).
        init(waitStatus status: Int32) {
            let signal = status & 0x7f
            self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
        }
    }

    /// A child that could not be started: the call and its error.
    package struct SpawnError: Error, CustomStringConvertible {
        package let description: String
    }

    /// The child's process ID.
    package let pid: pid_t
    private let reaper: Reaper

    /// Starts `executable` (an absolute path; no `PATH` search).
    /// - Parameters:
    ///   - arguments: its arguments (`argv[0]` is `executable`).
    ///   - environment: its whole environment; nil inherits this process's.
    ///   - standardInput: a file to read as standard input; nil reads `/dev/null`.
    ///   - standardOutput: a file standard output is appended to (created, mode 0600, if
    ///     missing); nil discards it.
    ///   - standardError: the same for standard error; the same path as `standardOutput`
    ///     shares its descriptor, so both go to one file in the order written.
    package init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        standardInput: String? = nil, standardOutput: String? = nil, standardError: String? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let output = O_WRONLY | O_CREAT | O_APPEND
        posix_spawn_file_actions_addopen(&actions, 0, standardInput ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput ?? "/dev/null", output, 0o600)
        if standardError != nil, standardError == standardOutput {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, standardError ?? "/dev/null", output, 0o600)
        }
        guard Self.closeFrom(&actions, 3) == 0 else {
            throw SpawnError(description: "posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(errno)))")
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let code =
            envp.map { posix_spawn(&pid, executable, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard code == 0 else {
            throw SpawnError(description: "posix_spawn \(executable): \(String(cString: strerror(code)))")
        }
        self.pid = pid
        reaper = Reaper(pid: pid)
        let reaper = reaper
        let watcher = Thread { reaper.reapOnExit() }
        watcher.name = "ChildProcess \(pid)"
        watcher.start()
    }

    /// Kills a child that still runs (SIGKILL) and reaps it, waiting at most 10 s; a child that
    /// does not end within them (stuck in the kernel) is reported on standard error and left to
    /// the watching thread.
    deinit {
        if killAndWait(timeout: 10) == nil {
            FileHandle.standardError.write(Data("ChildProcess: \(pid) still runs 10 s after SIGKILL\n".utf8))
        }
    }

    /// Whether the child has not yet been reaped (reaping it here if it has exited).
    package var isRunning: Bool { reaper.reap() == nil }

    /// How the child ended, once reaped (reaping it here if it has exited); nil while it runs.
    package var termination: Termination? { reaper.reap() }

    /// Waits at most `timeout` seconds for the child to end; how it ended, or nil if it still runs.
    @discardableResult
    package func wait(timeout: Double) -> Termination? {
        reaper.wait(until: Date().addingTimeInterval(timeout))
    }

    /// Sends `signal` to the child by its PID, unless it has been reaped; true when sent.
    @discardableResult
    package func kill(_ signal: Int32) -> Bool {
        reaper.send(signal)
    }

    /// Sends SIGKILL unless the child has been reaped, then waits at most `timeout` seconds for
    /// it; how it ended, or nil if it still runs (only a process stuck in the kernel outlives
    /// SIGKILL for long).
    @discardableResult
    package func killAndWait(timeout: Double = 10) -> Termination? {
        kill(SIGKILL)
        return wait(timeout: timeout)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; Debian 12 has 2.36),
    /// which the Glibc module does not declare to Swift: looked up once by name.
    private static let closeFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            preconditionFailure("glibc 2.34 or later is needed: posix_spawn_file_actions_addclosefrom_np")
        }
        return unsafeBitCast(
            symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}

/// The child's state, shared by its ``ChildProcess`` and the thread that waits for its exit: the
/// one place that reaps the PID and signals it, under one lock.
private final class Reaper: @unchecked Sendable {
    // @unchecked: `termination` is read and written only under `condition`'s lock.
    let pid: pid_t
    private let condition = NSCondition()
    private var termination: ChildProcess.Termination?

    init(pid: pid_t) { self.pid = pid }

    /// How the child ended; reaps it first (`waitpid(pid, WNOHANG)`) if it has exited and is not
    /// yet reaped. Nil while it runs.
    func reap() -> ChildProcess.Termination? {
        condition.withLock {
            if termination == nil {
                var status: Int32 = 0
                var reaped = waitpid(pid, &status, WNOHANG)
                while reaped == -1 && errno == EINTR { reaped = waitpid(pid, &status, WNOHANG) }
                if reaped == pid {
                    termination = ChildProcess.Termination(waitStatus: status)
                } else if reaped == -1 {
                    termination = .reapedElsewhere  // ECHILD: nothing of ours is left to reap
                }
                if termination != nil { condition.broadcast() }
            }
            return termination
        }
    }

    /// The watching thread's body: blocks until the child has exited, without reaping it
    /// (`WNOWAIT`, so that the PID stays the child's until ``reap()`` takes it under the lock),
    /// then reaps it.
    func reapOnExit() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        _ = reap()
    }

    /// Waits until the child has been reaped or `deadline` passes. Wakes at least every 50 ms to
    /// reap it itself, so a wait ends even if the watching thread could not be started.
    func wait(until deadline: Date) -> ChildProcess.Termination? {
        while true {
            if let termination = reap() { return termination }
            let now = Date()
            if now >= deadline { return nil }
            condition.withLock {
                if termination == nil { _ = condition.wait(until: min(deadline, now.addingTimeInterval(0.05))) }
            }
        }
    }

    /// Sends `signal` to the PID while the child is not reaped; true when sent.
    func send(_ signal: Int32) -> Bool {
        condition.withLock { termination == nil && kill(pid, signal) == 0 }
    }
}
