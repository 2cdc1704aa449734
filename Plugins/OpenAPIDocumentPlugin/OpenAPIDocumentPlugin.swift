import PackagePlugin

/// Build-tool plugin of PermissionAPI: turns the repository's `openapi.yaml` into a Swift source
/// (`OpenAPIDocument.text`) in the plugin's work directory at every build where the file
/// changed, so that `GET /openapi.yaml` serves it byte for byte from inside the one static
/// binary, with no resource bundle beside it and no generated copy in the repository.
@main
struct OpenAPIDocumentPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        // Declared as an input, so editing the document rebuilds the target.
        let document = context.package.directoryURL.appending(path: "openapi.yaml")
        let source = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument.swift")
        let generator = try context.tool(named: "OpenAPIDocumentGenerator")
        return [
            .buildCommand(
                displayName: "Embedding openapi.yaml in \(target.name)",
                executable: generator.url,
                arguments: [document.path(percentEncoded: false), source.path(percentEncoded: false)],
                inputFiles: [document],
                outputFiles: [source])
        ]
    }
}
