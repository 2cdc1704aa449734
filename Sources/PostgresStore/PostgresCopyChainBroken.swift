/// An audit row handed to ``PostgresCopySession/appendCopied(_:)`` does not follow the head,
/// or its stored hash is not the hash of its columns.
package struct PostgresCopyChainBroken: Error, CustomStringConvertible {
    package let seq: Int64
    package let headSeq: Int64

    package var description: String {
        "audit entry \(seq) does not follow the copied chain's head \(headSeq) or its hash is wrong (seq, prev_hash or hash differ): the source's chain is broken; nothing was copied"
    }
}
