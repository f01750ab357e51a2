import Foundation
import MouchardTestSupport
import MouchardWire
import Testing
@testable import MouchardInspection

/// Hostile-input proof for `TrackerDirectory` loading (and the shared `JSONParser` under it), driven by
/// `ByteMutator` (seeded): mutated `Rules/trackers.json`, deep nesting, huge numbers and wrong types
/// end in a directory or a `TrackerDirectoryError` naming the file with a position inside it — never
/// a crash.
///
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N mutations instead of the small CI default.
@Suite struct TrackerDirectoryMutationTests {
    static let iterations = ByteMutator.iterations(default: 300, environment: ProcessInfo.processInfo.environment)

    static let small = Array(#"""
    {"version": 2, "description": "t",
     "trackers": {"sdk.one.example": {"company": "One", "owner": "One Inc.", "country": "US", "product": "One SDK", "category": "analytics", "basis": "verified", "source": "https://one.example/docs", "checked": "2026-01-31", "evidence": "docs list it"},
                  "two.example": {"company": "T\u00e9", "owner": "T\u00e9 SA", "country": "FR", "category": "advertising", "basis": "unverified", "source": "https://x.example/\ud83d\ude00", "note": "n"}}}
    """#.utf8)

    /// Loads `bytes`; checks an error names the file and points inside the input.
    @discardableResult
    func load(_ bytes: [UInt8], _ what: @autoclosure () -> String,
              sourceLocation: SourceLocation = #_sourceLocation) -> Result<TrackerDirectory, TrackerDirectoryError> {
        do {
            let directory = try TrackerDirectory(jsonData: Data(bytes), file: "t.json")
            // A loaded directory answers lookups for every one of its domains.
            for entry in directory.entries.prefix(50) {
                #expect(directory.lookup(host: "x." + entry.domain) != nil, sourceLocation: sourceLocation)
            }
            return .success(directory)
        } catch {
            #expect(error.file == "t.json" && !error.message.isEmpty, "\(what())", sourceLocation: sourceLocation)
            if let location = error.location {
                #expect((0...bytes.count).contains(location.offset) && location.line >= 1 && location.column >= 1,
                        "\(what()): \(error) at offset \(location.offset) outside \(bytes.count) bytes",
                        sourceLocation: sourceLocation)
            }
            return .failure(error)
        }
    }

    @Test(arguments: [0x7EAC_0001, 0x7EAC_0002] as [UInt64])
    func mutatedDirectories(seed: UInt64) throws {
        let bundled = [UInt8](try bundledTrackerDirectoryData())
        var mutator = ByteMutator(seed: seed)
        let samples = [Self.small, bundled]
        for k in 0..<Self.iterations {
            // The bundled file is large: fewer rounds on it.
            let sample = samples[k % 4 == 0 ? 1 : 0]
            let input = mutator.mutate(sample, maxMutations: 6, donors: samples)
            load(input, "seed \(seed) iteration \(k), input size \(input.count)")
        }
    }

    @Test func truncationAtEveryLength() {
        for length in 0..<Self.small.count {
            guard case .failure(let error) = load(Array(Self.small.prefix(length)), "cut at \(length)") else {
                Issue.record("cut at \(length) accepted")
                continue
            }
            #expect((error.location?.offset ?? 0) <= length)
        }
    }

    /// Values that trap careless conversions: versions beyond Int, deep nesting, odd numbers.
    @Test func hostileValues() {
        let versions = ["1e300", "100000000000000000000000", "-100000000000000000000000", "9223372036854775808",
                        "-9223372036854775809", "1.0", "-0", "1E2", "0.5", "\"1\"", "null", "[1]", "-1"]
        for version in versions {
            let input = Array(#"{"version": \#(version), "trackers": {}}"#.utf8)
            guard case .failure(let error) = load(input, "version \(version)") else {
                Issue.record("version \(version) accepted")
                continue
            }
            #expect(error.message.contains("version"), "\(error)")
        }
        for opener in ["[", "{\"a\":", "{\"version\":1,\"trackers\":{\"a.example\":"] {
            let deep = Array(String(repeating: opener, count: 100_000).utf8)
            guard case .failure(let error) = load(deep, "\(opener) x 100000") else {
                Issue.record("deep nesting accepted")
                continue
            }
            #expect(error.message.contains("nesting") || error.message.contains("expected"), "\(error)")
        }
        let long = String(repeating: "a", count: 1 << 20)
        load(Array(#"{"version":2,"trackers":{"\#(long).example":{"company":"\#(long)","category":"analytics","source":"s"}}}"#.utf8), "long")
        load(Array(#"{"version":2,"trackers":{"x.example":{"company":"c","category":"analytics","source":"s"},"x.example":{}}}"#.utf8), "dup")
    }

    /// Mutated host names (ports, brackets, dots, non-ASCII, control bytes) through lookup, the
    /// registrable domain and the first-party decision: an answer, never a trap.
    @Test func mutatedHostNames() throws {
        let directory = try loadBundledTrackerDirectory()
        let policy = FirstPartyPolicy(explicitDomains: [], requestsPerHost: ["api.lumo.example": 3, "cdn.lumo.example:443": 1],
                                      appHints: ["com.lumo.torch", "LumoTorch/2.1 (iPhone; iOS 17)"], trackers: directory)
        let explicit = FirstPartyPolicy(explicitDomains: ["lumo.example", "[::1]", " ", "a..b"], trackers: directory)
        let hosts = ["app-measurement.com", "x.ads.tiktok.com:443", "[2001:db8::1]:8443", "192.168.1.1", "API.Lumo.Example.",
                     "\u{00E9}t\u{00E9}.example", "a.b.c.d.e.f.co.uk"].map { Array($0.utf8) }
        var mutator = ByteMutator(seed: 0x4057)
        for k in 0..<Self.iterations * 4 {
            let host = String(decoding: mutator.mutate(hosts[k % hosts.count], maxMutations: 5, donors: hosts), as: UTF8.self)
            _ = directory.lookup(host: host)
            _ = HostName.normalized(host)
            _ = RegistrableDomain.of(host)
            _ = RegistrableDomain.nameLabel(of: host)
            _ = policy.decide(host: host)
            _ = explicit.decide(host: host)
            _ = FirstPartyPolicy.hintWords(from: host)
        }
    }
}
