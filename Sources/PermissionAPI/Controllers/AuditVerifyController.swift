import HTTPCore
import Logging
import PermissionDomain
import Synchronization

/// `GET /v1/audit/verify` (admin, auditor): walks the audit hash chain in batches and
/// answers how long the intact chain is and the first entry that fails, if any. Registered
/// only when the store keeps a chain (`AuditChainVerifier`). One runs at a time: each reads
/// and hashes the whole log on a worker thread, so a second while one runs is `503` with
/// `Retry-After` (``Running``).
struct AuditVerifyController {
    /// Rows read per query.
    static let batchSize = 2_000
    /// The `Retry-After` of a verification refused while another runs, in seconds.
    static let retryAfter = 5

    /// Whether a verification is running.
    final class Running: Sendable {
        private let flag = Atomic(false)

        /// Takes the one place; false when a verification holds it.
        func enter() -> Bool { flag.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged }

        func leave() { flag.store(false, ordering: .releasing) }
    }

    let verifier: any AuditChainVerifier
    let running = Running()

    func register(on routes: inout APIRoutes) {
        let verifier = verifier
        let running = running
        routes.get("/v1/audit/verify", access: .audit, execution: .worker) { request in
            guard running.enter() else {
                throw APIProblem(
                    .unavailable, "A verification of the audit chain is running (one at a time); retry later.",
                    headers: ["Retry-After": "\(Self.retryAfter)"])
            }
            defer { running.leave() }
            let logger = request.logger
            let report = try verifier.verifyAuditChain(batchSize: Self.batchSize) { checked, total in
                logger.debug("audit chain verification", metadata: ["checked": "\(checked)", "total": "\(total)"])
            }
            if let seq = report.firstFailingSeq {
                logger.warning(
                    "audit chain broken",
                    metadata: ["seq": "\(seq)", "reason": "\(report.failure?.rawValue ?? "")"])
            }
            let keys = try verifier.unauditedKeys()
            for key in keys {
                logger.warning(
                    "an API key the audit log does not account for",
                    metadata: ["key": "\(key.id)", "role": "\(key.role.rawValue)", "reason": "\(key.reason.rawValue)"])
            }
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
            return try Responses.json(Self.wire(report, unauditedKeys: keys), headers: headers)
        }
    }

    static func wire(_ report: AuditChainReport, unauditedKeys: [UnauditedKey]) -> Wire.AuditVerification {
        Wire.AuditVerification(
            valid: report.isIntact, checked: report.intactLength + (report.isIntact ? 0 : 1),
            lastSeq: report.lastIntactSeq, headHash: report.lastIntactHash, firstInvalidSeq: report.firstFailingSeq,
            intactLength: report.intactLength, total: report.totalEntries,
            reason: report.failure.flatMap { Wire.AuditVerification.Reason(rawValue: $0.rawValue) },
            unauditedKeys: unauditedKeys.map {
                Wire.AuditVerification.UnauditedKey(id: $0.id.rawValue, role: $0.role.rawValue, reason: wire($0.reason))
            })
    }

    private static func wire(_ reason: UnauditedKey.Reason) -> Wire.AuditVerification.UnauditedKey.Reason {
        switch reason {
        case .noEntry: .noEntry
        case .roleDiffers: .roleDiffers
        case .secretDiffers: .secretDiffers
        }
    }
}
