import Foundation
import MouchardTestSupport
import MouchardWire
import Testing
@testable import MouchardFlow

/// Hostile-input proof for the HAR reader and its JSON parser, driven by `ByteMutator` (seeded):
/// damaged bytes, truncations, deep nesting, huge strings and wrong types at every JSON path end in
/// flows or in a `HARError` that says where (byte offset inside the file, or the JSON path) —
/// never in a crash.
///
/// `MOUCHARD_FUZZ_ITERATIONS=N` runs N mutations per test instead of the small CI default.
@Suite struct HARMutationTests {
    static let iterations = ByteMutator.iterations(default: 300, environment: ProcessInfo.processInfo.environment)

    /// A small HAR using every field the reader looks at.
    static let smallHAR = Array(#"""
    {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [
      {"startedDateTime": "2026-10-05T07:41:40.215+02:00", "time": 12.5, "_flowId": 7, "_custom": {"a": [1, 2.5e3, null]},
       "serverIPAddress": "[2001:db8::1]", "_serverPort": 8443, "_clientAddress": "10.0.0.2", "_clientPort": 5000,
       "_tls": {"serverName": "api.example", "version": "TLSv1.3", "alpn": ["h2", "http/1.1"]}, "connection": "42",
       "request": {"method": "POST", "url": "https://api.example:8443/v1/e?idfa=X%20Y", "httpVersion": "HTTP/1.1",
         "headers": [{"name": "Host", "value": "api.example:8443"}, {"name": ":path", "value": "/v1"}, {"name": "X-E", "value": "\u00e9\ud83d\ude00"}],
         "postData": {"mimeType": "application/octet-stream", "text": "AAEC/w==", "encoding": "base64", "_x": true}, "_target": "/v1/e?idfa=X%20Y"},
       "response": {"status": 200, "statusText": "OK", "httpVersion": "h2", "headers": [{"name": "Content-Type", "value": "text/plain"}],
         "content": {"size": 5, "mimeType": "text/plain", "text": "hello"}, "_bodyTruncated": false},
       "timings": {"blocked": -1, "dns": 1, "connect": "2", "ssl": 0.5, "send": 0, "wait": 10, "receive": 1}},
      {"startedDateTime": "2026-10-05T07:41:41Z", "request": {"method": "GET", "url": "http://t.example/p",
         "postData": {"params": [{"name": "a b", "value": "c&d"}]}}, "response": {"status": 0, "headers": []}}
    ]}}
    """#.utf8)

    /// The first five entries of the iOS fixture HAR, as a HAR of their own.
    static let corpusHAR: [UInt8] = {
        let url = TestFiles.fixture("ios", "traffic.har")
        guard let data = try? Data(contentsOf: url),
              var root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              var log = root["log"] as? [String: Any], let entries = log["entries"] as? [Any], entries.count >= 5
        else { fatalError("\(url.path): not a HAR with 5 entries (run Tests/Fixtures/make_fixtures.py)") }
        log["entries"] = Array(entries.prefix(5))
        root["log"] = log
        guard let five = try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted]) else { fatalError("\(url.path)") }
        return [UInt8](five)
    }()

    /// What every read must satisfy: flows, or a `HARError` with an offset inside the input or a path.
    func read(_ bytes: [UInt8], _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) -> Result<[Flow], HARError> {
        do {
            return .success(try HARReader.read(bytes: bytes))
        } catch {
            if let offset = error.byteOffset {
                #expect((0...bytes.count).contains(offset), "\(what()): offset \(offset) outside \(bytes.count) bytes: \(error)",
                        sourceLocation: sourceLocation)
            }
            #expect(!error.message.isEmpty && !error.description.isEmpty, "\(what())", sourceLocation: sourceLocation)
            return .failure(error)
        }
    }

    @Test func samplesAreValid() throws {
        #expect(try HARReader.read(bytes: Self.smallHAR).count == 2)
        #expect(try HARReader.read(bytes: Self.corpusHAR).count == 5)
    }

    @Test(arguments: [0x4A2_0001, 0x4A2_0002] as [UInt64])
    func mutatedBytes(seed: UInt64) {
        var mutator = ByteMutator(seed: seed)
        let samples = [Self.smallHAR, Self.corpusHAR]
        for k in 0..<Self.iterations {
            let input = mutator.mutate(samples[k % 2], maxMutations: 8, donors: samples)
            if case .success(let flows) = read(input, "seed \(seed) iteration \(k), input size \(input.count)") {
                #expect(flows.count <= 10)
            }
            // Skipping bad entries never loses a good one: every entry is a flow or a reported error.
            if let (flows, skipped) = try? HARReader.readSkippingBadEntries(Data(input)),
               let entries = try? HARReader.entryNodes(input) {
                #expect(flows.count + skipped.count == entries.count, "seed \(seed) iteration \(k)")
            }
        }
    }

    /// Every cut of a HAR is invalid JSON (an error at or before the cut), except cuts in the
    /// trailing whitespace.
    @Test func truncationAtEveryLength() {
        for sample in [Self.smallHAR, Array(Self.corpusHAR.prefix(20_000))] {
            let end = sample.lastIndex { $0 != 0x20 && $0 != 0x0A } ?? 0
            for length in stride(from: 0, to: end, by: sample.count > 5_000 ? 7 : 1) {
                let cut = Array(sample[..<length])
                guard case .failure(let error) = read(cut, "cut at \(length)") else {
                    Issue.record("cut at \(length) of \(sample.count) was accepted")
                    continue
                }
                #expect(error.byteOffset.map { $0 <= length } == true, "cut at \(length): \(error)")
            }
        }
    }

    /// 100 000 nested brackets (and braces) stop at the nesting limit with an offset, no stack overflow.
    @Test func deepNesting() {
        for opener in ["[", "{\"a\":", "[{\"k\":"] {
            let deep = Array(String(repeating: opener, count: 100_000).utf8)
            guard case .failure(let error) = read(deep, "\(opener) x 100000") else {
                Issue.record("deep nesting accepted")
                continue
            }
            #expect(error.message.contains("nesting"), "\(error)")
            // Inside an entry, as a custom field.
            let inEntry = Array(#"{"log":{"entries":[{"_deep":"#.utf8) + deep
            if case .success = read(inEntry, "deep custom field") { Issue.record("deep custom field accepted") }
        }
        // Just under the limit is accepted and kept (serialized back into extras).
        let nested = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        let ok = Array(#"{"log":{"entries":[{"_deep":\#(nested),"request":{"method":"GET","url":"http://h/"}}]}}"#.utf8)
        #expect((try? HARReader.read(bytes: ok))?.first?.extras["_deep"] == nested)
    }

    /// Huge strings and numbers are read (or refused) without trouble.
    @Test func hugeValues() throws {
        let big = String(repeating: "A", count: 4 << 20)
        let har = #"{"log":{"entries":[{"request":{"method":"GET","url":"http://h/?q=\#(big)","postData":{"text":"\#(big)","encoding":"base64"}},"response":{"status":200,"content":{"text":"\#(big)"}}}]}}"#
        let flows = try HARReader.read(bytes: Array(har.utf8))
        #expect(flows.first?.request?.body.count == 3 << 20)
        #expect(flows.first?.response?.body.count == 4 << 20)
        let digits = String(repeating: "9", count: 100_000)
        for field in [#""time":\#(digits)"#, #""_serverPort":\#(digits),"serverIPAddress":"1.2.3.4""#,
                      #""timings":{"wait":\#(digits)}"#, #""timings":{"wait":-\#(digits).5e\#(digits)}"#] {
            let input = Array(#"{"log":{"entries":[{\#(field),"request":{"method":"GET","url":"http://h/"},"response":{"status":\#(digits)}}]}}"#.utf8)
            guard case .failure(let error) = read(input, field.prefix(20) + "…") else {
                Issue.record("status \(digits.prefix(10))… accepted")
                continue
            }
            #expect(error.path.hasPrefix("log.entries[0]"), "\(error)")
        }
        // A long run of escapes and invalid UTF-8 in a string.
        let escapes = Array(#"{"log":{"entries":[{"_e":""#.utf8) + Array(repeating: Array(#"\ud800\u00e9"#.utf8), count: 50_000).flatMap { $0 }
            + [0xFF, 0xFE] + Array(#""}]}}"#.utf8)
        _ = read(escapes, "escapes")
    }

    /// Every value of the small HAR, replaced in turn by a value of every other JSON type: flows, or
    /// an error whose path is the replaced value or one of its ancestors or children.
    @Test func wrongTypeAtEveryPath() throws {
        let root = try JSONSerialization.jsonObject(with: Data(Self.smallHAR))
        let replacements: [Any] = [NSNull(), true, -1.5, 1e300, "text", "", [Any](), [String: Any](), [["name": 1]]]
        var checked = 0
        for path in jsonPaths(root) {
            for replacement in replacements {
                let changed = replacing(root, at: path.steps, with: replacement)
                let bytes = [UInt8](try JSONSerialization.data(withJSONObject: changed, options: [.fragmentsAllowed]))
                checked += 1
                guard case .failure(let error) = read(bytes, "\(path.text) = \(replacement)") else { continue }
                #expect(error.byteOffset == nil, "valid JSON reported as invalid: \(error)")
                #expect(path.text.hasPrefix(error.path) || error.path.hasPrefix(path.text),
                        "replacing \(path.text) by \(replacement) blamed \(error.path): \(error)")
            }
        }
        #expect(checked > 500)
    }
}

/// A step into a JSON tree: an object member or an array index.
enum JSONStep { case key(String), index(Int) }

/// Every path of a `JSONSerialization` tree, with its HAR-style text (`log.entries[0].request`).
func jsonPaths(_ value: Any, steps: [JSONStep] = [], text: String = "") -> [(steps: [JSONStep], text: String)] {
    var out = [(steps: steps, text: text)]
    if let object = value as? [String: Any] {
        for (key, child) in object {
            out += jsonPaths(child, steps: steps + [.key(key)], text: text.isEmpty ? key : "\(text).\(key)")
        }
    } else if let array = value as? [Any] {
        for (k, child) in array.enumerated() {
            out += jsonPaths(child, steps: steps + [.index(k)], text: "\(text)[\(k)]")
        }
    }
    return out
}

/// `value` with the value at `steps` replaced by `replacement`.
func replacing(_ value: Any, at steps: [JSONStep], with replacement: Any) -> Any {
    guard let step = steps.first else { return replacement }
    let rest = Array(steps.dropFirst())
    switch step {
    case .key(let key):
        guard var object = value as? [String: Any], let child = object[key] else { return value }
        object[key] = replacing(child, at: rest, with: replacement)
        return object
    case .index(let k):
        guard var array = value as? [Any], array.indices.contains(k) else { return value }
        array[k] = replacing(array[k], at: rest, with: replacement)
        return array
    }
}
