/// A connection's receive buffer: one heap block read into directly by `read(2)`, consumed
/// from the front, compacted lazily. Owned by one connection and used only on its queue.
final class InputBuffer {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var end = 0

    init(capacity: Int = 4096) {
        self.capacity = capacity
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    var count: Int { end - start }
    var isEmpty: Bool { end == start }

    /// The unread bytes, valid until the next mutation.
    var readable: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage + start, count: end - start) }

    /// Makes room for at least `minimum` bytes after the unread ones and returns where to write.
    func reserve(_ minimum: Int) -> UnsafeMutableRawBufferPointer {
        if start == end {
            start = 0
            end = 0
        }
        if capacity - end < minimum {
            let unread = end - start
            if start > 0 && capacity - unread >= minimum {
                (storage).copyMemory(from: storage + start, byteCount: unread)
            } else {
                var newCapacity = capacity * 2
                while newCapacity - unread < minimum { newCapacity *= 2 }
                let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
                grown.copyMemory(from: storage + start, byteCount: unread)
                storage.deallocate()
                storage = grown
                capacity = newCapacity
            }
            start = 0
            end = unread
        }
        return UnsafeMutableRawBufferPointer(start: storage + end, count: capacity - end)
    }

    /// Marks `n` bytes written after a `reserve`.
    func commit(_ n: Int) { end += n }

    /// Drops `n` bytes from the front.
    func consume(_ n: Int) {
        start += n
        if start >= end {
            start = 0
            end = 0
        }
    }

    /// Drops every unread byte.
    func clear() {
        start = 0
        end = 0
    }
}
