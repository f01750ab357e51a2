import Foundation
import MouchardSniffer

/// `sniff-extract FILE`: reads a capture through the sniffer pipeline (reader, reassembly, HTTP,
/// DNS, TLS) without keeping flows, and prints what it found and how fast.
var sniffExtractBenchmark: Benchmark {
    Benchmark(name: "sniff-extract", summary: "FILE: capture → flows, prints counts and MB/s", run: runSniffExtract)
}

func runSniffExtract(_ args: [String]) throws {
    guard let path = args.first else { throw CLIUsage("sniff-extract FILE") }
    let start = Date()
    var requests = 0
    var tls = 0
    let result = try CaptureFileExtractor.extract(path: path, collect: false) { flow in
        if flow.request != nil { requests += 1 } else { tls += 1 }
    }
    let seconds = Date().timeIntervalSince(start)
    let mb = Double(result.statistics.bytes) / 1e6
    print("packets \(result.statistics.packets) http-requests \(requests) tls \(tls) destinations \(result.destinations.count)")
    print(String(format: "%.1f MB in %.2f s: %.1f MB/s", mb, seconds, mb / seconds))
    if let e = result.readError { print("read error: \(e)") }
}

struct CLIUsage: Error, CustomStringConvertible {
    var description: String
    init(_ s: String) { description = "usage: mouchard-bench \(s)" }
}
