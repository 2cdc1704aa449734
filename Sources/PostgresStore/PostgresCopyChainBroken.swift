/// An audit row handed to ``PostgresCopySession/appendCopied(_:)`` does not follow the head.
package struct PostgresCopyChainBroken: Error, CustomStringConvertible {
    package let seq: Int64
    package let headSeq: Int64

    package var description: String {
        "audit entry \(seq) does not follow the copied chain's head \(headSeq) (seq or prev_hash differ); nothing was copied"
    }
}
