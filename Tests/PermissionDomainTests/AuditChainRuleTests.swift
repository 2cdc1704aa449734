import Foundation
import PermissionDomain
import TestSupport
import Testing

/// The audit hash chain's rule, pure: the canonical encoding of literal records, how an entry
/// becomes the record a store persists, the link to the previous hash, and verification of
/// literal chains (what breaks where). The digest is a stand-in (the domain does no
/// cryptography); SQLiteStoreTests pins the real SHA-256 values.
@Suite struct AuditChainRuleTests {
    /// A stand-in digest: 32 bytes of four FNV-1a lanes, different for any different input.
    struct LaneHasher: AuditChainHasher {
        func sha256(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            for lane in UInt64(0)..<4 {
                var value: UInt64 = 0xcbf2_9ce4_8422_2325 ^ lane
                for byte in bytes {
                    value ^= UInt64(byte)
                    value &*= 0x0000_0100_0000_01B3
                }
                for shift in stride(from: 56, through: 0, by: -8) {
                    out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
                }
            }
            return out
        }
    }

    /// A stand-in seal: the pseudonym `p_` + the user, the ciphertext `sealed:` + the plaintext.
    struct VisibleSealer: PersonalFieldSealer {
        func seal(_ fields: PersonalFields, seq: Int64) throws -> SealedPersonalFields {
            SealedPersonalFields(
                pseudonym: "p_" + fields.user, ciphertext: "sealed:" + String(decoding: fields.plaintext, as: UTF8.self))
        }
    }

    let chain = AuditChain(hasher: LaneHasher())
    let sealer = VisibleSealer()

    /// Three linked records, as a store would have written them.
    func chainOfThree() -> [AuditRecord] {
        var tip = AuditChainTip.empty
        return (0..<3).map { index in
            let entry = AuditEntry(
                at: Date(millisecondsSince1970: 1_000 + Int64(index)), actor: .system, action: .promptExpired,
                user: UserID(trusted: "u\(index)"))
            let record = try! chain.record(for: entry, after: tip, sealer: sealer)
            tip = AuditChainTip(linking: record)
            return record
        }
    }

    @Test func encodingIsTheTagThenEachFieldTypedAndLengthPrefixed() {
        let record = AuditRecord(seq: 1, at: 2, actorRole: "a", prevHash: "p")
        let hex = AuditChain.encoding(of: record).map { String(format: "%02x", $0) }.joined()
        // Computed independently (Python, the rule in docs/audit-chain.md): tag, INTEGER 1, INTEGER 2, NULL,
        // TEXT "a", 19 NULLs, TEXT "p".
        #expect(
            hex == "7065726d697373696f6e2d61756469742d7632" + "010000000000000001" + "010000000000000002" + "00"
                + "020000000161" + String(repeating: "00", count: 19) + "020000000170")
        // The format before sealing: its own tag, no `personal`.
        let v1 = AuditChain.encoding(of: record, format: .v1).map { String(format: "%02x", $0) }.joined()
        #expect(
            v1 == "7065726d697373696f6e2d61756469742d7631" + "010000000000000001" + "010000000000000002" + "00"
                + "020000000161" + String(repeating: "00", count: 18) + "020000000170")
    }

    @Test func anEntryBecomesItsStoredColumns() {
        let tip = AuditChainTip(seq: 41, hash: String(repeating: "a", count: 64))
        let record = try! chain.record(for: AuditEntry.everyKindOfField, after: tip, sealer: sealer)
        let expected = AuditRecord(
            seq: 42, at: 1_700_000_000_000, actorKey: "consent-1", actorRole: "consent", action: "prompt.answered",
            user: "p_u1", app: "com.example.scanner", service: "camera", fromStatus: "notDetermined", fromLevel: nil,
            fromProvisional: 0, fromOnce: 0, toStatus: "authorized", toLevel: "full", toProvisional: 0, toOnce: 1,
            reason: "userConsent", purpose: nil, purposeHash: chain.purposeHash(of: "Scan documents."),
            promptId: "p-1", requestId: "r-1", detail: nil,
            personal: #"sealed:{"detail":"{\"choice\":\"allow\",\"kind\":\"camera\"}","purpose":"Scan documents.","user":"u1"}"#,
            prevHash: tip.hash, hash: nil)
        var unhashed = record
        unhashed.hash = nil
        #expect(unhashed == expected)
        #expect(record.hash == chain.hash(of: expected))
        #expect(AuditChainTip(linking: record) == AuditChainTip(seq: 42, hash: record.hash!))
    }

    @Test func anEntryWithoutSnapshotsOrDetailHasNulls() {
        let entry = AuditEntry(at: Date(millisecondsSince1970: 5), actor: .system, action: .promptExpired)
        let record = try! chain.record(for: entry, after: .empty, sealer: sealer)
        #expect(record.seq == 1 && record.prevHash == AuditChain.genesis)
        #expect(record.actorKey == nil && record.fromStatus == nil && record.fromProvisional == nil)
        #expect(record.toOnce == nil && record.detail == nil && record.purpose == nil && record.purposeHash == nil)
    }

    @Test func theHashCoversEveryFieldAndThePreviousHash() {
        let record = try! chain.record(for: AuditEntry.everyKindOfField, after: .empty, sealer: sealer)
        var edits: [(String, (inout AuditRecord) -> Void)] = [
            ("seq", { $0.seq += 1 }), ("at", { $0.at += 1 }), ("actorKey", { $0.actorKey = nil }),
            ("toOnce", { $0.toOnce = 0 }), ("fromLevel", { $0.fromLevel = "" }), ("detail", { $0.detail = "{}" }),
            ("purposeHash", { $0.purposeHash = nil }), ("personal", { $0.personal = nil }),
            ("prevHash", { $0.prevHash = "1" + $0.prevHash!.dropFirst() }),
        ]
        // NULL, 0 and "" encode differently.
        edits.append(("user as empty text", { $0.user = "" }))
        for (name, edit) in edits {
            var changed = record
            edit(&changed)
            #expect(chain.hash(of: changed) != record.hash, "\(name)")
        }
        var sameContent = record
        sameContent.hash = "stored hash is not hashed"
        #expect(chain.hash(of: sameContent) == record.hash)
    }

    @Test func anIntactChainReportsItsHead() {
        let records = chainOfThree()
        #expect(records.map(\.seq) == [1, 2, 3])
        #expect(records[0].prevHash == AuditChain.genesis)
        #expect(records[1].prevHash == records[0].hash && records[2].prevHash == records[1].hash)
        #expect(
            chain.verify(records)
                == AuditChainReport(
                    intactLength: 3, totalEntries: 3, lastIntactSeq: 3, lastIntactHash: records[2].hash))
    }

    @Test func anEmptyLogIsIntact() {
        #expect(chain.verify([]) == AuditChainReport(intactLength: 0, totalEntries: 0))
    }

    @Test func anEditedRecordIsAHashMismatchAtItsSeq() {
        var records = chainOfThree()
        records[1].user = "mallory"
        #expect(
            chain.verify(records)
                == AuditChainReport(
                    intactLength: 1, firstFailingSeq: 2, failure: .hashMismatch, totalEntries: 3, lastIntactSeq: 1,
                    lastIntactHash: records[0].hash))
    }

    @Test func aRecordReplacedWithARecomputedHashBreaksTheNextLink() {
        var records = chainOfThree()
        records[1].user = "mallory"
        records[1].hash = chain.hash(of: records[1])
        let report = chain.verify(records)
        #expect(report.failure == .prevMismatch && report.firstFailingSeq == 3 && report.intactLength == 2)
        #expect(report.lastIntactHash == records[1].hash)
    }

    @Test func aDeletedRecordIsAGapAtTheMissingSeq() {
        var records = chainOfThree()
        records.remove(at: 1)
        #expect(
            chain.verify(records)
                == AuditChainReport(
                    intactLength: 1, firstFailingSeq: 2, failure: .seqGap, totalEntries: 2, lastIntactSeq: 1,
                    lastIntactHash: records[0].hash))
        var noFirst = chainOfThree()
        noFirst.removeFirst()
        #expect(chain.verify(noFirst).failure == .seqGap && chain.verify(noFirst).firstFailingSeq == 1)
    }

    @Test func aWrongGenesisIsAPrevMismatchAtSeqOne() {
        var records = chainOfThree()
        records[0].prevHash = nil
        #expect(chain.verify(records).failure == .prevMismatch && chain.verify(records).firstFailingSeq == 1)
    }

    /// A store walks a large log in batches; the result is the same as one pass, and a count
    /// taken before more rows were appended never reports fewer entries than were checked.
    @Test func aWalkInBatchesAgreesWithOnePass() {
        let records = chainOfThree()
        var walk = AuditChainWalk(chain: chain)
        for batch in [Array(records[0..<2]), Array(records[2...])] {
            for record in batch {
                let extended = walk.check(record)
                #expect(extended)
            }
        }
        #expect(walk.lastSeq == 3 && !walk.isBroken)
        #expect(walk.report(totalEntries: 1) == chain.verify(records))
    }

    /// The batched walk both stores call: every batch size gives the one-pass result, fetches
    /// start after the last checked seq, progress is reported after each batch, and a break
    /// stops the fetching.
    @Test(arguments: [1, 2, 3, 5])
    func theBatchedVerifyAgreesWithOnePass(batchSize: Int) {
        let records = chainOfThree()
        var starts: [Int64] = []
        let report = chain.verify(total: 3, batchSize: batchSize, progress: nil) { after, limit in
            starts.append(after)
            return Array(records.filter { $0.seq > after }.prefix(Int(limit)))
        }
        #expect(report == chain.verify(records))
        #expect(starts == stride(from: 0, to: 4, by: batchSize).map(Int64.init))

        var broken = records
        broken[1].hash = String(repeating: "0", count: 64)
        var fetches = 0
        let brokenReport = chain.verify(total: 3, batchSize: batchSize, progress: nil) { after, limit in
            fetches += 1
            return Array(broken.filter { $0.seq > after }.prefix(Int(limit)))
        }
        #expect(brokenReport == chain.verify(broken))
        #expect(brokenReport.firstFailingSeq == 2)
        #expect(fetches == (batchSize == 1 ? 2 : 1), "nothing is fetched after the break")
    }
}
