import Foundation
import MouchardFlow
import MouchardInspection

/// `mouchard-bench inspect [--pattern] [--mb N] [--runs N] HAR:PROFILE...`: inspector throughput on
/// the given captures replicated to about N MB of request data (request line, headers and body as
/// sent), one core, with each capture's full device profile (all variants) or with the pattern rules.
/// Prints MB/s and requests/s, median of the runs (in all, and per capture). Each capture's copies run
/// one after the other, as audits do (one phone, one profile at a time); `--interleave` alternates
/// the captures every pass instead (two profiles evicting each other from cache).
/// `--no-prefilter` walks every request;
/// `--only TEXT` keeps the requests whose URL holds TEXT; `--costliest N` lists the N requests that
/// take the most time instead.
var inspectBenchmark: Benchmark {
    Benchmark(name: "inspect", summary: "Inspector throughput (MB/s, requests/s) on replicated captures", run: runInspectBenchmark)
}

private func requestBytes(_ r: HTTPRequest) -> Int {
    var n = r.method.utf8.count + r.head.target.utf8.count + 12
    for f in r.headers { n += f.name.utf8.count + f.valueBytes.count + 4 }
    return n + r.body.count
}

private func runInspectBenchmark(_ args: [String]) throws {
    var pattern = false
    var prefilter = true
    var targetMB = 64.0
    var runs = 5
    var rulesDir = "Rules"
    var costliest = 0
    var interleave = false
    /// Only the requests whose URL holds this text (to profile one kind of request).
    var only: String?
    var inputs: [(String, String?)] = []
    var i = 0
    while i < args.count {
        switch args[i] {
        case "--pattern": pattern = true
        case "--no-prefilter": prefilter = false
        case "--interleave": interleave = true
        case "--mb": i += 1; targetMB = Double(args[i]) ?? targetMB
        case "--runs": i += 1; runs = max(1, Int(args[i]) ?? runs)
        case "--rules": i += 1; rulesDir = args[i]
        case "--only": i += 1; only = args[i]
        case "--costliest": i += 1; costliest = max(1, Int(args[i]) ?? 20)
        default:
            let parts = args[i].split(separator: ":", maxSplits: 1).map(String.init)
            inputs.append((parts[0], parts.count > 1 ? parts[1] : nil))
        }
        i += 1
    }
    var sets: [RuleSet] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: rulesDir).sorted() where name.hasSuffix(".json") && name != "trackers.json" {
        sets.append(try RuleFileLoader.load([UInt8](try Data(contentsOf: URL(fileURLWithPath: rulesDir + "/" + name))), file: name))
    }
    let rules = try RuleFileLoader.merge(sets)

    // Each capture with its own inspector (its own device profile).
    var work: [(Inspector, [Flow])] = []
    var bytes: [Int] = []
    var bytesPerPass = 0
    var requestsPerPass = 0
    for (har, profilePath) in inputs {
        let flows = try HARReader.read(Data(contentsOf: URL(fileURLWithPath: har))).filter { flow in
            guard let r = flow.request else { return false }
            return only.map { r.url.contains($0) } ?? true
        }
        var profile: DeviceProfile?
        if !pattern, let profilePath {
            profile = try DeviceProfile.load([UInt8](try Data(contentsOf: URL(fileURLWithPath: profilePath))), file: profilePath)
        }
        var inspector = Inspector(rules: rules, profile: profile)
        inspector.rawPrefilter = prefilter
        if let kv = inspector.knownValues {
            print("inspect: \(har): \(flows.count) requests, profile \(kv.patternCount) variants, \(kv.matcher.stateCount) DFA states")
        }
        work.append((inspector, flows))
        bytes.append(flows.reduce(0) { $0 + requestBytes($1.request!) })
        bytesPerPass += bytes[bytes.count - 1]
        requestsPerPass += flows.count
    }
    guard bytesPerPass > 0 else { throw NSError(domain: "inspect", code: 1, userInfo: [NSLocalizedDescriptionKey: "no requests"]) }
    let copies = max(1, Int((targetMB * 1_000_000 / Double(bytesPerPass)).rounded(.up)))
    print("inspect: \(requestsPerPass) requests, \(bytesPerPass) bytes per pass; \(copies) copies = "
          + String(format: "%.1f MB", Double(bytesPerPass * copies) / 1e6) + " per run, mode \(pattern ? "pattern" : "profile")")
    if costliest > 0 {
        printCostliest(work, count: costliest)
        return
    }
    var rates: [(Double, Double)] = []
    /// MB/s of each capture, by run (not with `--interleave`).
    var perCapture: [[Double]] = Array(repeating: [], count: work.count)
    var findings = 0
    // Each flow is lent from a constant property: passing an array element (even through a
    // buffer pointer) copies the flow first (retaining all its fields), a cost of this loop that
    // is no part of the inspector's (the proxy and the CLI hand it flows they own).
    let held = work.map { w in w.1.map(HeldFlow.init) }
    func pass(_ w: Int) {
        let inspector = work[w].0
        for flow in held[w] { findings += flow.findingCount(inspector) }
    }
    for run in 1...runs {
        findings = 0
        let start = DispatchTime.now().uptimeNanoseconds
        // CPU time of this thread: the machine is shared, so wall time overstates the cost.
        let cpuStart = threadCPUSeconds()
        if interleave {
            for _ in 0..<copies { for w in work.indices { pass(w) } }
        } else {
            for w in work.indices {
                let captureStart = threadCPUSeconds()
                for _ in 0..<copies { pass(w) }
                perCapture[w].append(Double(bytes[w] * copies) / 1e6 / (threadCPUSeconds() - captureStart))
            }
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let seconds = threadCPUSeconds() - cpuStart
        let mbps = Double(bytesPerPass * copies) / 1e6 / seconds
        let rps = Double(requestsPerPass * copies) / seconds
        rates.append((mbps, rps))
        print(String(format: "inspect: run %d: %.2f s CPU (%.2f s wall), %.1f MB/s, %.0f requests/s, %d findings",
                     run, seconds, wall, mbps, rps, findings))
    }
    for (w, (har, _)) in inputs.enumerated() where !perCapture[w].isEmpty {
        print("inspect: \(har): median " + String(format: "%.1f MB/s", perCapture[w].sorted()[perCapture[w].count / 2]))
    }
    let mb = rates.map(\.0).sorted()[rates.count / 2]
    let rq = rates.map(\.1).sorted()[rates.count / 2]
    print(String(format: "inspect: median %.1f MB/s, %.0f requests/s (per CPU second, one core)", mb, rq))
}

/// `--costliest N`: each request inspected alone 200 times; the N that take the most CPU time per
/// pass, with their share of the pass, size and findings: where a speed-up would pay.
private func printCostliest(_ work: [(Inspector, [Flow])], count: Int) {
    var costs: [(seconds: Double, bytes: Int, findings: Int, label: String)] = []
    var total = 0.0
    for (inspector, flows) in work {
        for flow in flows {
            let repeats = 200
            let start = threadCPUSeconds()
            var found = 0
            for _ in 0..<repeats { found = inspector.inspect(flow).count }
            let seconds = (threadCPUSeconds() - start) / Double(repeats)
            total += seconds
            let r = flow.request!
            let type = r.headers["Content-Type"] ?? "-"
            costs.append((seconds, requestBytes(r), found, "\(r.method) \(r.host)\(r.pathAndQuery.prefix(60)) [\(type.prefix(40))]"))
        }
    }
    print(String(format: "inspect: %.1f µs per pass of %d requests", total * 1e6, costs.count))
    for c in costs.sorted(by: { $0.seconds > $1.seconds }).prefix(count) {
        print(String(format: "%7.2f µs %5.1f%% %6d B %2d findings  ", c.seconds * 1e6, 100 * c.seconds / total, c.bytes, c.findings) + c.label)
    }
}

private func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// A flow in a constant property, lent to the inspector without a copy.
private final class HeldFlow {
    let flow: Flow
    init(_ flow: Flow) { self.flow = flow }
    /// How many findings `inspector` reports for the flow. Called here, where the flow is a
    /// property of `self`, it is lent; read by the caller (`held.flow`), Swift copies it first.
    func findingCount(_ inspector: Inspector) -> Int { inspector.inspect(flow).count }
}
