import Foundation
import ProxyConformance

/// `mouchard-bench conformance --proxy 127.0.0.1:PORT [--upstream-timeout S] [--name NAME] [--only CASE,...]`:
/// runs the black-box forward-proxy cases against any proxy and prints one line per case
/// (`NAME CASE pass|FAIL reference detail`), for bench/conformance.sh to tabulate.
@MainActor let conformanceBenchmark = Benchmark(name: "conformance", summary: "RFC 9110/9112 forward-proxy cases against a running proxy") { args in
    var proxy: (String, Int)?
    var timeout = 30.0
    var name = "proxy"
    var only: Set<String>?
    var i = 0
    while i < args.count {
        let value = i + 1 < args.count ? args[i + 1] : ""
        switch args[i] {
        case "--proxy":
            let parts = value.split(separator: ":")
            if parts.count == 2, let port = Int(parts[1]) { proxy = (String(parts[0]), port) }
        case "--upstream-timeout": timeout = Double(value) ?? timeout
        case "--name": name = value
        case "--only": only = Set(value.split(separator: ",").map(String.init))
        default: throw ConformanceError("unknown argument \(args[i])")
        }
        i += 2
    }
    guard let (host, port) = proxy else { throw ConformanceError("--proxy HOST:PORT is required") }
    let context = ConformanceContext(proxyHost: host, proxyPort: port, upstreamTimeout: timeout)
    var passed = 0, total = 0
    for c in ConformanceCases.all where only?.contains(c.name) ?? true {
        let r = c.result(in: context)
        total += 1
        if r.passed { passed += 1 }
        let detail = r.detail.replacingOccurrences(of: "\n", with: " ")
        // Unbuffered, so a case that hangs shows where.
        let line = "\(name)\t\(r.name)\t\(r.passed ? "pass" : "FAIL")\t\(r.reference)\t\(String(format: "%.2f", r.seconds))\t\(detail)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }
    FileHandle.standardOutput.write(Data("\(name)\ttotal\t\(passed)/\(total)\n".utf8))
}
