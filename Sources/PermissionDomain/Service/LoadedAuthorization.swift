/// An authorization loaded for a flow: its service, stored record and effective view.
struct LoadedAuthorization {
    let service: ServiceDefinition
    let stored: StoredAuthorization
    let effective: Authorization
}
