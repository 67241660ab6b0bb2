import ArgumentParser

/// `snapboard-engine`: the canvas engine on its own, for benchmarks and a quick look.
@main
struct SnapboardEngine: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapboard-engine",
        abstract: "Runs Snapboard's canvas engine without a server.",
        subcommands: [Demo.self],
        defaultSubcommand: Demo.self)
}
