import Foundation
import MouchardWire

// wire: throughput of the HTTP/1 parsers. Builds ~`--mb` MB of request bytes and as many of response
// bytes from the dev corpus HAR files (serialized with MouchardWire) plus synthetic traffic (long
// tracker query strings, JSON POSTs, chunked uploads, chunked and gzip-sized responses), then parses
// each stream in one pass fed in `--chunk`-byte pieces, 5 times, and prints the median.

@MainActor let wireBenchmark = Benchmark(
    name: "wire",
    summary: "HTTP/1 request and response parser throughput (MB/s, messages/s) [--corpus DIR] [--mb N] [--chunk BYTES]",
    run: runWireBenchmark
)

private func runWireBenchmark(_ args: [String]) throws {
    var corpus = "../shared/corpus/dev"
    var megabytes = 100
    var chunk = 16 * 1024
    var i = 0
    while i < args.count {
        let value = i + 1 < args.count ? args[i + 1] : ""
        switch args[i] {
        case "--corpus": corpus = value
        case "--mb": megabytes = Int(value) ?? megabytes
        case "--chunk": chunk = max(1, Int(value) ?? chunk)
        default: throw WireBenchError.usage(args[i])
        }
        i += 2
    }

    var requests: [[UInt8]] = []
    var responses: [[UInt8]] = []
    for device in ["android", "ios"] {
        let url = URL(fileURLWithPath: corpus).appendingPathComponent(device).appendingPathComponent("traffic.har")
        guard let data = try? Data(contentsOf: url) else { continue }
        let (q, r) = try harMessages(data)
        requests += q
        responses += r
    }
    let harCount = requests.count
    let (sq, sr) = syntheticMessages()
    requests += sq
    responses += sr

    let target = megabytes << 20
    let requestStream = repeatToSize(requests, target)
    let responseStream = repeatToSize(responses, target)
    print("wire: \(harCount) HAR requests + \(sq.count) synthetic; request stream \(mb(requestStream.bytes.count)) MB "
        + "(\(requestStream.messages) msgs), response stream \(mb(responseStream.bytes.count)) MB (\(responseStream.messages) msgs), "
        + "chunk \(chunk) B")

    var reqRates: [(Double, Double)] = []
    var respRates: [(Double, Double)] = []
    for run in 1...5 {
        let q = try measure(requestStream, chunk: chunk) { HTTPRequestParser() }
        let r = try measure(responseStream, chunk: chunk) { HTTPResponseParser() }
        reqRates.append(q)
        respRates.append(r)
        print(String(format: "  run %d: requests %.0f MB/s %.0f msg/s; responses %.0f MB/s %.0f msg/s", run, q.0, q.1, r.0, r.1))
    }
    func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
    print(String(format: "wire: median of 5: requests %.0f MB/s, %.0f messages/s; responses %.0f MB/s, %.0f messages/s",
                 median(reqRates.map(\.0)), median(reqRates.map(\.1)), median(respRates.map(\.0)), median(respRates.map(\.1))))
}

enum WireBenchError: Error, CustomStringConvertible {
    case usage(String)
    case wrongCount(expected: Int, got: Int)
    var description: String {
        switch self {
        case .usage(let a): "wire: unknown argument \(a)"
        case .wrongCount(let e, let g): "wire: parsed \(g) messages, expected \(e)"
        }
    }
}

private struct Stream {
    var bytes: [UInt8]
    var messages: Int
}

private func mb(_ n: Int) -> String { String(format: "%.1f", Double(n) / 1_048_576) }

private func repeatToSize(_ messages: [[UInt8]], _ target: Int) -> Stream {
    var out: [UInt8] = []
    out.reserveCapacity(target + 1 << 20)
    var count = 0
    while out.count < target, !messages.isEmpty {
        for m in messages {
            out += m
            count += 1
        }
    }
    return Stream(bytes: out, messages: count)
}

/// Parses the stream in `chunk`-byte pieces; returns (MB/s, messages/s).
private func measure<P: HTTPMessageParsing>(_ stream: Stream, chunk: Int, _ make: () -> P) throws -> (Double, Double) {
    var parser = make()
    var events: [HTTPParserEvent<P.Head>] = []
    events.reserveCapacity(1024)
    var ends = 0
    var bodyBytes = 0
    let start = DispatchTime.now().uptimeNanoseconds
    try stream.bytes.withUnsafeBufferPointer { all in
        var i = 0
        while i < all.count {
            let end = min(all.count, i + chunk)
            events.removeAll(keepingCapacity: true)
            try parser.feed(UnsafeBufferPointer(rebasing: all[i..<end]), into: &events)
            for e in events {
                switch e {
                case .end: ends += 1
                case .body(let b): bodyBytes += b.count
                default: break
                }
            }
            i = end
        }
    }
    events.removeAll(keepingCapacity: true)
    try parser.finish(into: &events)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    guard ends == stream.messages else { throw WireBenchError.wrongCount(expected: stream.messages, got: ends) }
    precondition(bodyBytes >= 0)
    return (Double(stream.bytes.count) / 1_048_576 / seconds, Double(ends) / seconds)
}

/// Requests and responses of a HAR file, re-serialized as HTTP/1.1 with a body framed by Content-Length.
private func harMessages(_ data: Data) throws -> ([[UInt8]], [[UInt8]]) {
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let log = root["log"] as? [String: Any],
          let entries = log["entries"] as? [[String: Any]] else { return ([], []) }
    var requests: [[UInt8]] = []
    var responses: [[UInt8]] = []
    for entry in entries {
        guard let req = entry["request"] as? [String: Any], let method = req["method"] as? String,
              let urlString = req["url"] as? String, let url = URLComponents(string: urlString),
              method != "HEAD", method != "CONNECT" else { continue }
        let target = (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath)
            + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
        let body = Array(((req["postData"] as? [String: Any])?["text"] as? String ?? "").utf8)
        var head = HTTPRequestHead(method: method, target: target, headers: harHeaders(req["headers"]))
        if !head.headers.contains("Host"), let host = url.host { head.headers.fields.insert(HTTPField(name: "Host", value: host), at: 0) }
        if !body.isEmpty { head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
        var bytes = head.serialized
        bytes += body
        requests.append(bytes)

        guard let resp = entry["response"] as? [String: Any], let status = resp["status"] as? Int else { continue }
        let text = Array(((resp["content"] as? [String: Any])?["text"] as? String ?? "").utf8)
        var rhead = HTTPResponseHead(status: status, reason: resp["statusText"] as? String ?? "", headers: harHeaders(resp["headers"]))
        rhead.headers.remove(name: "Transfer-Encoding")
        rhead.headers.replaceOrAdd(name: "Content-Length", value: String(status == 204 || status == 304 ? 0 : text.count))
        var rbytes = rhead.serialized
        if status != 204, status != 304 { rbytes += text }
        responses.append(rbytes)
    }
    return (requests, responses)
}

private func harHeaders(_ value: Any?) -> HTTPHeaders {
    var headers = HTTPHeaders()
    for h in value as? [[String: Any]] ?? [] {
        if let n = h["name"] as? String, let v = h["value"] as? String, !n.hasPrefix(":"),
           n.lowercased() != "transfer-encoding", n.lowercased() != "content-length" {
            headers.add(name: n, value: v)
        }
    }
    return headers
}

/// Traffic shapes the HAR files have few of: long tracker URLs, bigger JSON posts, chunked bodies.
private func syntheticMessages() -> ([[UInt8]], [[UInt8]]) {
    var requests: [[UInt8]] = []
    var responses: [[UInt8]] = []
    let ua = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
    for k in 0..<20 {
        var query = "v=2&tid=UA-\(100_000 + k)-1&cid=5b1f0e4c-8e3a-4d1b-9f3e-\(k)&t=event&ec=ui&ea=tap&el=button_\(k)"
        for p in 0..<(10 + k * 4) { query += "&cd\(p)=" + String(repeating: "x", count: 8 + p % 24) }
        let get = HTTPRequestHead(method: "GET", target: "/collect?" + query, headers: [
            ("Host", "www.tracker.example"), ("User-Agent", ua), ("Accept", "*/*"), ("Accept-Language", "fr-FR,fr;q=0.9"),
            ("Accept-Encoding", "gzip, deflate, br"), ("Connection", "keep-alive"), ("Cookie", "_ga=GA1.2.\(k); _gid=GA1.2.\(k * 7)"),
        ])
        requests.append(get.serialized)

        let json = Array(("{\"events\":[" + (0..<(5 + k * 3)).map {
            "{\"name\":\"screen_view\",\"ts\":\(1_791_302_598 + $0),\"idfv\":\"6F9619FF-8B86-D011-B42D-00C04FC964FF\",\"props\":{\"screen\":\"home\",\"n\":\($0)}}"
        }.joined(separator: ",") + "]}").utf8)
        let post = HTTPRequestHead(method: "POST", target: "/v1/batch", headers: [
            ("Host", "api.analytics.example"), ("User-Agent", ua), ("Content-Type", "application/json"),
            ("Content-Length", String(json.count)), ("X-Api-Key", "k_\(k)"),
        ])
        requests.append(post.serialized + json)

        let upload = HTTPRequestHead(method: "POST", target: "/upload/logs", headers: [
            ("Host", "logs.example"), ("Transfer-Encoding", "chunked"), ("Content-Type", "application/octet-stream"),
        ])
        requests.append(upload.serialized + HTTPChunkedEncoder.encode(json + json, chunkSize: 1000 + 97 * k))

        let ok = HTTPResponseHead(status: 200, reason: "OK", headers: [
            ("Date", "Tue, 06 Oct 2026 16:03:18 GMT"), ("Content-Type", "application/json"), ("Content-Length", String(json.count)),
            ("Cache-Control", "no-store"), ("Connection", "keep-alive"),
        ])
        responses.append(ok.serialized + json)
        let chunked = HTTPResponseHead(status: 200, reason: "OK", headers: [
            ("Content-Type", "text/html; charset=utf-8"), ("Transfer-Encoding", "chunked"), ("Vary", "Accept-Encoding"),
        ])
        responses.append(chunked.serialized + HTTPChunkedEncoder.encode(json + json + json, chunkSize: 4096))
        responses.append(HTTPResponseHead(status: 204, reason: "No Content", headers: [("Server", "nginx")]).serialized)
    }
    return (requests, responses)
}
