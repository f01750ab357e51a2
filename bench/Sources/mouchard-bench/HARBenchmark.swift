import Foundation
import MouchardFlow

/// `har [FLOWS] [--corpus FILE.har] [--out FILE.har]`: HAR codec throughput on a synthetic HAR made of
/// the corpus entries repeated up to FLOWS flows (default 20000); `--out` keeps the file for the
/// import/export benchmark (bench/har.sh).
var harBenchmark: Benchmark { Benchmark(name: "har", summary: "HAR reader and writer throughput (MB/s, flows/s)") { args in
    var count = 20_000
    var corpus = "../shared/corpus/dev/ios/traffic.har"
    var out: String?
    var i = 0
    while i < args.count {
        switch args[i] {
        case "--corpus" where i + 1 < args.count: corpus = args[i + 1]; i += 1
        case "--out" where i + 1 < args.count: out = args[i + 1]; i += 1
        default: count = Int(args[i]) ?? count
        }
        i += 1
    }
    let seed = try HARReader.read(Data(contentsOf: URL(fileURLWithPath: corpus)))
    guard !seed.isEmpty else { throw HARError(path: corpus, message: "no entries") }
    var flows: [Flow] = []
    flows.reserveCapacity(count)
    for k in 0..<count {
        var f = seed[k % seed.count]
        f.id = k + 1
        flows.append(f)
    }
    let writer = HARWriter(creatorVersion: "bench")
    func time<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let v = try body()
        return (v, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    var best = (write: Double.infinity, read: Double.infinity)
    var data = Data()
    for _ in 0..<3 {
        let (d, w) = time { writer.document(flows) }
        data = d
        let (back, r) = try time { try HARReader.read(d) }
        guard back.count == count else { throw HARError(path: "", message: "read \(back.count) of \(count) flows") }
        best = (min(best.write, w), min(best.read, r))
    }
    let mb = Double(data.count) / 1e6
    print(String(format: "har: %d flows, %.1f MB", count, mb))
    print(String(format: "har write: %.3f s  %.1f MB/s  %.0f flows/s", best.write, mb / best.write, Double(count) / best.write))
    print(String(format: "har read:  %.3f s  %.1f MB/s  %.0f flows/s", best.read, mb / best.read, Double(count) / best.read))
    if let out { try data.write(to: URL(fileURLWithPath: out)) }
}
}
