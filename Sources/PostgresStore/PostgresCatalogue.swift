import PermissionDomain

/// What the hot-path read needs besides the record, kept in memory by ``PostgresReadModel``:
/// the custom services (built-in ones live in `Catalogue`) and the services that some policy
/// names (the others skip the policy query). Small: operators define a handful of each.
/// Immutable and shared: a reader takes the current one with a single retain.
final class PostgresCatalogue: Sendable {
    let services: [ServiceID: ServiceDefinition]
    let policyServices: Set<ServiceID>

    init(services: [ServiceID: ServiceDefinition], policyServices: Set<ServiceID>) {
        self.services = services
        self.policyServices = policyServices
    }

    /// The definition of `id`, built in or custom; nil when unknown.
    func definition(_ id: ServiceID) -> ServiceDefinition? {
        Catalogue.builtin(id) ?? services[id]
    }
}
