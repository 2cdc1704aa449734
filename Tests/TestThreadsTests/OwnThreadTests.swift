import Foundation
import Synchronization
import TestThreads
import Testing

/// The `.blocksItsThread` trait: the bodies it marks run on threads of their own, synchronous
/// and asynchronous, child tasks included; the bodies it does not mark stay on the shared pool.
@Suite struct OwnThreadTests {
    @Test(.blocksItsThread) func aSynchronousBodyRunsOnAThreadOfItsOwn() {
        #expect(BlockingTestExecutor.isOnOwnThread)
    }

    @Test(.blocksItsThread) func anAsynchronousBodyAndItsChildTasksRunOnThreadsOfTheirOwn() async {
        #expect(BlockingTestExecutor.isOnOwnThread)
        await Task.yield()
        #expect(BlockingTestExecutor.isOnOwnThread)
        let children = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 { group.addTask { BlockingTestExecutor.isOnOwnThread } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(children == [true, true, true, true])
    }

    @Test(.blocksItsThread, arguments: [1, 2]) func eachCaseOfAParameterizedTestToo(_ value: Int) {
        #expect(BlockingTestExecutor.isOnOwnThread)
    }

    @Test func anUnmarkedBodyStaysOnTheSharedPool() {
        #expect(!BlockingTestExecutor.isOnOwnThread)
    }
}

/// The lanes of `.startsProcesses`: never more test cases inside than lanes, the others let in
/// in the order they came, and a test of such a suite runs on a thread of its own.
@Suite struct TestLanesTests {
    @Test func noMoreThanTheWidthAtOnce() async {
        let lanes = TestLanes(width: 2)
        let inside = Inside()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    await lanes.enter()
                    inside.state.withLock {
                        $0.now += 1
                        $0.most = max($0.most, $0.now)
                        $0.order.append(index)
                    }
                    try? await Task.sleep(for: .milliseconds(5))
                    inside.state.withLock { $0.now -= 1 }
                    lanes.leave()
                }
            }
        }
        let result = inside.state.withLock { $0 }
        #expect(result.most == 2 || result.most == 1)
        #expect(result.order.sorted() == Array(0..<8))
        #expect(lanes.waitingCount == 0)
    }

    /// With one lane held and the other passed from each test case to the next, the waiting
    /// come in in the order they came.
    @Test func theWaitingComeInInTheOrderTheyCame() async {
        let lanes = TestLanes(width: 2)
        let inside = Inside()
        await lanes.enter()
        await lanes.enter()
        let deadline = ContinuousClock.now + .seconds(10)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                group.addTask {
                    await lanes.enter()
                    inside.state.withLock { $0.order.append(index) }
                    lanes.leave()
                }
                // Each one waiting before the next is added, so that the order is known.
                while lanes.waitingCount < index + 1 && ContinuousClock.now < deadline { await Task.yield() }
            }
            lanes.leave()
        }
        #expect(inside.state.withLock { $0.order } == Array(0..<6))
        lanes.leave()
        #expect(lanes.waitingCount == 0)
    }

    /// Who is inside the lanes now, the most at once, and in which order they came in.
    final class Inside: Sendable {
        let state = Mutex((now: 0, most: 0, order: [Int]()))
    }

    @Test(.startsProcesses) func aTestThatStartsProcessesRunsOnAThreadOfItsOwn() {
        #expect(BlockingTestExecutor.isOnOwnThread)
    }

    @Test func theProcessLanesAreAtLeastTwo() {
        #expect(TestLanes.processes.width >= 2)
    }
}

/// A suite's trait reaches every test in it.
@Suite(.blocksItsThread) struct OwnThreadSuiteTests {
    @Test func aTestOfAMarkedSuiteRunsOnAThreadOfItsOwn() {
        #expect(BlockingTestExecutor.isOnOwnThread)
    }
}

/// Every test with a time limit runs on a thread of its own. swift-testing starts a test's time
/// limit before the test has a thread; on the shared pool, held by tests that block, such a test
/// could wait past its limit without having run (see `OwnThreadTrait`). The rule, checked over
/// the sources of every test target: an `@Test(...)` or `@Suite(...)` attribute that names
/// `.timeLimit(` names `.blocksItsThread` or `.startsProcesses` too.
@Suite struct TimeLimitedTestsRunOnTheirOwnThreads {
    /// The `Tests` directory: two levels above this file.
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// The text of every `@Test(...)` and `@Suite(...)` attribute in `source`, parentheses matched.
    static func attributes(in source: String) -> [String] {
        var found: [String] = []
        let characters = Array(source)
        var index = 0
        while index < characters.count {
            guard characters[index] == "@" else {
                index += 1
                continue
            }
            let rest = String(characters[index..<min(index + 7, characters.count)])
            guard rest.hasPrefix("@Test(") || rest.hasPrefix("@Suite(") else {
                index += 1
                continue
            }
            var depth = 0
            var end = index
            while end < characters.count {
                if characters[end] == "(" { depth += 1 }
                if characters[end] == ")" {
                    depth -= 1
                    if depth == 0 { break }
                }
                end += 1
            }
            found.append(String(characters[index...min(end, characters.count - 1)]))
            index = end + 1
        }
        return found
    }

    @Test func theAttributeScanFindsNestedParentheses() {
        let source = """
            @Suite(.serialized, .timeLimit(.minutes(2)), .blocksItsThread) struct A {
                @Test(.timeLimit(.minutes(1))) func b() {}
                @Test func c() {}
            }
            """
        #expect(
            Self.attributes(in: source) == [
                "@Suite(.serialized, .timeLimit(.minutes(2)), .blocksItsThread)", "@Test(.timeLimit(.minutes(1)))",
            ])
    }

    @Test func everyAttributeWithATimeLimitNamesBlocksItsThread() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.testsDirectory.path))
            .compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("TestThreadsTests/") }
        var limited = 0
        var unmarked: [String] = []
        for file in files {
            let source = try String(contentsOf: Self.testsDirectory.appendingPathComponent(file), encoding: .utf8)
            for attribute in Self.attributes(in: source) where attribute.contains(".timeLimit(") {
                limited += 1
                if !attribute.contains(".blocksItsThread") && !attribute.contains(".startsProcesses") {
                    unmarked.append("\(file): \(attribute)")
                }
            }
        }
        #expect(limited > 50, "the scan found the time-limited tests and suites of every target")
        #expect(
            unmarked.isEmpty, "time limits without .blocksItsThread or .startsProcesses:\n\(unmarked.joined(separator: "\n"))")
    }
}
