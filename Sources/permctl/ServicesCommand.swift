import ArgumentParser
import PermissionClient
import PermissionWire

/// `permctl services [ID]`.
struct ServicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "services",
        abstract: "List the catalogue of services, or show one.",
        discussion: "Examples:\n  permctl services\n  permctl services location")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "Show only this service.") var service: String?

    func run() throws {
        let client = try connection.makeClient()
        let items: [ServiceDefinition]
        if let service {
            let one = try connection.call(client, Endpoints.service(service)).value
            if connection.json { return Output.json(one) }
            items = [one]
        } else {
            let list = try connection.call(client, Endpoints.services()).value
            if connection.json { return Output.json(list) }
            items = list.items
        }
        Output.table(
            ["SERVICE", "LEVELS", "BUILTIN", "SPECIALS"],
            items.map { service in
                [
                    service.id, service.levels.joined(separator: ","), service.builtin ? "yes" : "no",
                    service.specials.isEmpty ? "-" : service.specials.joined(separator: ","),
                ]
            })
    }
}
