extension PermissionService {
    /// Answers `queries` in order from one read snapshot (SPEC §11, AuthZEN evaluations): each
    /// is the effective authorization the status read would show, permitted when authorized at
    /// the level asked or above. Every query's service and level are checked before any is
    /// answered, so a bad one refuses the whole batch; with a short-circuit `semantic` the
    /// answers end with the deciding one.
    /// - Throws: `AccessQueryError` (`unknownService`, `unknownLevel`) naming the query.
    public func evaluate(
        _ queries: [AccessQuery], semantic: EvaluationSemantic = .executeAll
    ) throws
        -> [AccessEvaluation]
    {
        let at = now
        return try store.read { reader in
            var services: [ServiceDefinition] = []
            services.reserveCapacity(queries.count)
            for (index, query) in queries.enumerated() {
                do {
                    let service = try resolveService(reader, query.service)
                    if let level = query.level { try service.requireLevel(level) }
                    services.append(service)
                } catch let error as PermissionError {
                    throw AccessQueryError(index: index, error: error)
                }
            }
            var answers: [AccessEvaluation] = []
            answers.reserveCapacity(queries.count)
            for (query, service) in zip(queries, services) {
                let loaded = try load(reader, user: query.user, app: query.app, service: service, now: at)
                let effective = loaded.effective
                let required = query.level ?? service.levels[0]
                let decision = Rules.permits(effective, required, of: service)
                // notDetermined always needs a prompt (SPEC §11); a grant below `required` needs one
                // when a request for it would prompt (Rules.request: the state makes one due and
                // the app has the purpose strings the level adds), e.g. photos addOnly to full.
                var promptRequired = effective.status == .notDetermined
                if !promptRequired,
                    Rules.promptDue(level: required, service: service, stored: loaded.stored, effective: effective)
                {
                    let registered = try reader.app(query.app)
                    promptRequired = service.purposeKeys(for: required).allSatisfy { registered?.purposeStrings[$0] != nil }
                }
                answers.append(
                    AccessEvaluation(
                        authorization: effective, required: required, decision: decision, promptRequired: promptRequired))
                if semantic.stops(after: decision) { break }
            }
            return answers
        }
    }
}
