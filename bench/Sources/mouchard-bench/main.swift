import Foundation

// mouchard-bench: micro and macro benchmarks run by the scripts in bench/ (release build:
// `swift build -c release --product mouchard-bench`). Each benchmark is one file declaring a
// `Benchmark`; add it to `benchmarks` below.

/// One benchmark: a name for the command line and a run function that prints its figures.
struct Benchmark {
    var name: String
    var summary: String
    var run: ([String]) throws -> Void
}

let benchmarks: [Benchmark] = [
    sniffExtractBenchmark,
    trackerLookupBenchmark,
    inspectBenchmark,
    reportBenchmark,
    wireBenchmark,
    harBenchmark,
    tlsHandshakeBenchmark,
    tlsIdleMemoryBenchmark,
    tlsHandshakeThreadsBenchmark,
    conformanceBenchmark,
    trackerLookupBenchmark,
    inspectBenchmark,
    harBenchmark,
    fleetGatewayBenchmark,
]

let args = Array(CommandLine.arguments.dropFirst())
guard let name = args.first, let bench = benchmarks.first(where: { $0.name == name }) else {
    var s = "usage: mouchard-bench <benchmark> [args]\n\nbenchmarks:\n"
    for b in benchmarks { s += "  \(b.name)  \(b.summary)\n" }
    FileHandle.standardError.write(Data(s.utf8))
    exit(64)
}
do {
    try bench.run(Array(args.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("mouchard-bench: \(error)\n".utf8))
    exit(1)
}
