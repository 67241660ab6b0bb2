import ArgumentParser
import Foundation

/// `snapboard-server`: serves canvases (the default subcommand), and exports or imports one as JSON.
@main
struct SnapboardServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapboard-server",
        abstract: "Serves Snapboard canvases over WebSockets; exports and imports them.",
        subcommands: [Serve.self, Export.self, Import.self, Token.self, Health.self],
        defaultSubcommand: Serve.self)

    /// `snapboard-server --help` shows what serving takes, every option with it, since serving is what the
    /// command does when given no subcommand; then the other subcommands. (ArgumentParser would list only
    /// the subcommands.)
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] else {
            main(nil)
            return
        }
        print(helpMessage(for: Serve.self).replacingOccurrences(of: "snapboard-server serve", with: "snapboard-server [serve]"))
        print("""

            OTHER SUBCOMMANDS:
              export                  \(Export.configuration.abstract)
              import                  \(Import.configuration.abstract)
              token                   \(Token.configuration.abstract)
              health                  \(Health.configuration.abstract)

              See 'snapboard-server help <subcommand>' for their options.
            """)
    }
}

/// The value of `SNAPBOARD_<name>`, if set and not empty (compose files pass unset variables as "").
func env(_ name: String) -> String? {
    ProcessInfo.processInfo.environment["SNAPBOARD_" + name].flatMap { $0.isEmpty ? nil : $0 }
}
