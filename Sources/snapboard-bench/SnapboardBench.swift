import ArgumentParser

/// `snapboard-bench`: the benchmarks `make bench` runs, each printing its figures.
@main
struct SnapboardBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapboard-bench",
        abstract: "Snapboard's benchmarks.",
        subcommands: [SnappingBench.self, StorageBench.self, ResumeBench.self, CanvasesBench.self, StormBench.self])
}
