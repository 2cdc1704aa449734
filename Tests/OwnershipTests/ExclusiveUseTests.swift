import Foundation
import Ownership
import Testing

@Suite("Exclusive use of a lent object")
struct ExclusiveUseTests {
    @Test("the thread holding a loan passes the check, nested lends included")
    func loanPasses() {
        let use = ExclusiveUse("a test object")
        use.check()  // never lent: not checked
        use.enter()
        use.check()
        use.lend { use.check() }  // already held: the nested lend neither takes nor gives it back
        use.check()
        use.leave()
    }

    @Test("loans handed from thread to thread, one at a time, pass")
    func sequentialLoansPass() {
        let use = ExclusiveUse("a test object")
        let queue = DispatchQueue(label: "loans")
        for _ in 0..<100 {
            queue.sync {
                use.lend { use.check() }
            }
            use.lend { use.check() }
        }
    }

    #if DEBUG
    @Test("a touch outside any loan, once lent, stops the process")
    func touchOutsideALoanStops() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let use = ExclusiveUse("a test object")
            use.lend {}
            use.check()
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("a test object is used outside a loan or on another thread"), "\(message)")
    }

    @Test("a second thread entering while a loan is held stops the process")
    func secondThreadStops() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let use = ExclusiveUse("a test object")
            use.enter()
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                use.enter()
                done.signal()
            }
            _ = done.wait(timeout: .now() + 30)
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("a test object is in use on another thread"), "\(message)")
    }

    @Test("a thread giving back a loan it does not hold stops the process")
    func foreignLeaveStops() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let use = ExclusiveUse("a test object")
            use.enter()
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                use.leave()
                done.signal()
            }
            _ = done.wait(timeout: .now() + 30)
        }
        let message = exit.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("a test object is released by a thread that does not use it"), "\(message)")
    }
    #endif
}
