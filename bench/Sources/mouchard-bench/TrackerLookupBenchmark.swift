import Foundation
import MouchardInspection

/// `mouchard-bench trackers-lookup [RULES/trackers.json] [LOOKUPS]`: load time of the tracker directory and
/// lookups per second on a mix of tracker subdomains (hits) and unrelated hosts (misses), half each.
var trackerLookupBenchmark: Benchmark {
    Benchmark(name: "trackers-lookup", summary: "TrackerDirectory load time and host lookups per second",
              run: runTrackerLookupBenchmark)
}

private func runTrackerLookupBenchmark(_ args: [String]) throws {
    let path = args.first ?? "Rules/trackers.json"
    let lookups = args.count > 1 ? max(1, Int(args[1]) ?? 2_000_000) : 2_000_000
    let data = try Data(contentsOf: URL(fileURLWithPath: path))

    let loadStart = DispatchTime.now().uptimeNanoseconds
    let loads = 50
    var directory = try TrackerDirectory(jsonData: data, file: path)
    for _ in 1..<loads { directory = try TrackerDirectory(jsonData: data, file: path) }
    let loadSeconds = Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e9 / Double(loads)

    // Realistic host shapes: SDK hosts two or three labels under a tracker domain, app hosts under .example.
    var hosts: [String] = []
    for (index, entry) in directory.entries.enumerated() {
        hosts.append(index % 2 == 0 ? "sdk-api-v1.\(entry.domain)" : "eu.ingest.\(entry.domain):443")
        hosts.append("api\(index % 7).cdn-\(index).someapp-backend.example")
    }
    var hits = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for i in 0..<lookups where directory.lookup(host: hosts[i % hosts.count]) != nil {
        hits += 1
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print("trackers-lookup: \(directory.count) domains, load \(String(format: "%.2f", loadSeconds * 1000)) ms")
    print("trackers-lookup: \(lookups) lookups (\(hits) hits) in \(String(format: "%.3f", seconds)) s = "
          + "\(String(format: "%.2f", Double(lookups) / seconds / 1e6)) M lookups/s")
}
