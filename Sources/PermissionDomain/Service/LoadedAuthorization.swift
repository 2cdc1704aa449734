/// An authorization loaded for a flow: its service, stored record and effective view, and the
/// app as registered when the flow asked for it (nil otherwise, or when it never registered).
struct LoadedAuthorization {
    let service: ServiceDefinition
    let stored: StoredAuthorization
    let effective: Authorization
    var app: App? = nil
}
