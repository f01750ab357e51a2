import Foundation
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardPostgres
import MouchardStore

/// `mouchard-bench fleet-gateway --har FILE --device FILE --journal DIR [--store URL] [--seconds S]
/// [--rate FLOWS_PER_S] [--batch N] [--rules DIR]`: one simulated gateway. The HAR's flows are
/// inspected once (their findings kept), then recorded again and again, as a gateway's live audit
/// does (a batch of flows, then their findings), with new ids and times, for S seconds, at full
/// speed or paced to a rate. With --store the session is uploaded to the fleet store as `mouchard
/// gateway --store` does; without, it stays local (the SQLite store alone, for comparison). Then it
/// waits for the upload to finish. Prints one JSON line: flows and findings recorded, flows uploaded
/// within the window, the local append latency (what the recorder's thread waits), the upload
/// latency (local commit to PostgreSQL commit), and how long the backlog took to drain.
var fleetGatewayBenchmark: Benchmark {
    Benchmark(name: "fleet-gateway", summary: "one simulated gateway recording a HAR in a loop into the fleet store",
              run: runFleetGateway)
}

private func runFleetGateway(_ args: [String]) throws {
    var har = "", device: String?, journalDir = "", url: String?, rulesDir = "Rules"
    var seconds = 10.0, rate: Double?, batchSize = 64
    var i = 0
    while i < args.count {
        let value = i + 1 < args.count ? args[i + 1] : ""
        switch args[i] {
        case "--har": har = value
        case "--device": device = value
        case "--journal": journalDir = value
        case "--store": url = value
        case "--rules": rulesDir = value
        case "--seconds": seconds = Double(value) ?? seconds
        case "--rate": rate = Double(value)
        case "--batch": batchSize = max(1, Int(value) ?? batchSize)
        default: throw BenchError("unknown argument \(args[i])")
        }
        i += 2
    }
    // The flows and their findings, found once.
    let templates = try HARReader.read(Data(contentsOf: URL(fileURLWithPath: har))).filter { $0.request != nil }
    var sets: [RuleSet] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: rulesDir).sorted() where name.hasSuffix(".json") && name != "trackers.json" {
        sets.append(try RuleFileLoader.load([UInt8](try Data(contentsOf: URL(fileURLWithPath: rulesDir + "/" + name))), file: name))
    }
    let profile = try device.map { try DeviceProfile.load([UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))), file: $0) }
    let inspector = Inspector(rules: try RuleFileLoader.merge(sets), profile: profile)
    let found = templates.map { inspector.inspect($0) }

    let journal = try SessionStore(directory: journalDir, create: true)
    try journal.setMetadata("bench-gateway", for: SessionStore.MetadataKey.source)
    try journal.setMetadata("Bench", for: SessionStore.MetadataKey.app)
    let spooled = try url.map { try SpooledSessionStore(journal: journal, url: $0, log: { FileHandle.standardError.write(Data($0.utf8)) }) }
    let store: any SessionStoring = spooled ?? journal
    spooled?.uploader.start()

    var appendLatency = LatencyHistogram()
    var flowSeconds = 0.0, findingSeconds = 0.0
    let cpuStart = processCPUSeconds()
    var flowsRecorded = 0, findingsRecorded = 0, k = 0
    let start = Date()
    let end = start.addingTimeInterval(seconds)
    while Date() < end {
        if let rate {
            // Paced: batch n goes at start + n * batch / rate.
            let due = start.addingTimeInterval(Double(flowsRecorded) / rate)
            let wait = due.timeIntervalSinceNow
            if wait > 0 { usleep(useconds_t(min(wait, 0.5) * 1e6)); continue }
        }
        let now = Date()
        var flows: [Flow] = []
        var templatesUsed: [Int] = []
        for _ in 0..<batchSize {
            var f = templates[k % templates.count]
            f.id = 0
            f.timings.started = now
            flows.append(f)
            templatesUsed.append(k % templates.count)
            k += 1
        }
        let t0 = Date()
        let ids = try store.append(flows: flows)
        let t1 = Date()
        flowSeconds += t1.timeIntervalSince(t0)
        var findings: [Finding] = []
        for (n, id) in ids.enumerated() {
            for var f in found[templatesUsed[n]] {
                f.flow = id
                findings.append(f)
            }
        }
        if !findings.isEmpty { try store.append(findings: findings) }
        findingSeconds += Date().timeIntervalSince(t1)
        appendLatency.record(Date().timeIntervalSince(t0), weight: flows.count)
        flowsRecorded += flows.count
        findingsRecorded += findings.count
    }
    let window = Date().timeIntervalSince(start)
    let cpuWindow = processCPUSeconds() - cpuStart
    let uploadedInWindow = spooled?.uploader.status.flowsSent ?? flowsRecorded
    let drainStart = Date()
    let result = spooled?.finish(timeout: 120)
    let drain = Date().timeIntervalSince(drainStart)
    let cpuAll = processCPUSeconds() - cpuStart
    let status = result?.status
    func ms(_ s: Double) -> String { String(format: "%.2f", s * 1000) }
    let line = """
        {"flows":\(flowsRecorded),"findings":\(findingsRecorded),"window_s":\(String(format: "%.3f", window)),\
        "recorded_per_s":\(String(format: "%.0f", Double(flowsRecorded) / window)),\
        "uploaded_in_window":\(uploadedInWindow),"uploaded_per_s":\(String(format: "%.0f", Double(uploadedInWindow) / window)),\
        "uploaded_total":\(status?.flowsSent ?? flowsRecorded),"left":\(result?.flowsLeft ?? 0),"drain_s":\(String(format: "%.3f", drain)),\
        "append_p50_ms":\(ms(appendLatency.percentile(0.5))),"append_p99_ms":\(ms(appendLatency.percentile(0.99))),\
        "upload_p50_ms":\(ms(status?.latency.percentile(0.5) ?? 0)),"upload_p99_ms":\(ms(status?.latency.percentile(0.99) ?? 0)),\
        "batches":\(status?.batches ?? 0),"cpu_window_s":\(String(format: "%.3f", cpuWindow)),\
        "cpu_s":\(String(format: "%.3f", cpuAll)),"flow_append_us":\(String(format: "%.1f", flowSeconds / Double(max(1, flowsRecorded)) * 1e6)),\
        "finding_append_us":\(String(format: "%.1f", findingSeconds / Double(max(1, flowsRecorded)) * 1e6))}
        """
    print(line)
}

/// User and system CPU seconds of this process so far (every thread).
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
