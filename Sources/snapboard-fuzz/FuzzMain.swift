import Foundation
import SnapboardFuzz

#if FUZZING
/// `make fuzz` builds this target with `--sanitize fuzzer -DFUZZING`: libFuzzer's own `main` drives the
/// harness through this entry point, with libFuzzer's flags (`-max_total_time=N`, corpus folders).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzHarness.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
/// Built as usual, the fuzzer replays the files and folders it is given (crashes, a corpus) through the
/// same harness, which traps on the first input that breaks an invariant.
@main
enum FuzzMain {
    static func main() {
        var files: [URL] = []
        for path in CommandLine.arguments.dropFirst() {
            let url = URL(fileURLWithPath: path)
            let inside = try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
            files += inside ?? [url]
        }
        for file in files {
            guard let data = try? Data(contentsOf: file) else { continue }
            data.withUnsafeBytes(FuzzHarness.run)
        }
        print("snapboard-fuzz: \(files.count) inputs replayed, no invariant broken")
    }
}
#endif
