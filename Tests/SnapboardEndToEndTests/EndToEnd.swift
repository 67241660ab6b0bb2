import SnapboardTesting
import Testing

/// Every end-to-end suite, one after another: each starts real server processes, and running them in
/// parallel on a 2-core machine would make their timing-sensitive checks (backpressure, crashes) race
/// each other for CPU.
@Suite(.serialized)
enum EndToEnd {}
