import Foundation
import MouchardFlow
import MouchardSniffer
import MouchardTestSupport
import Testing

/// Cleartext HTTP/2 in a capture (`h2-streams.pcap`, made by `make_wild_defects.py`): prior knowledge
/// with the dynamic table reused, padding, CONTINUATION, a request body and a reset stream, and an h2c
/// upgrade. Each stream is a flow, the same requests tshark decodes (`-d tcp.port==8080,http2`).
@Suite struct HTTP2CaptureTests {
    static let idfa = "AEBE52E7-03EE-455A-B3C4-E57283966239"

    /// (client port, stream, method, path, authority, status) of every HTTP/2 flow.
    struct Row: Hashable, CustomStringConvertible {
        var port: Int, stream: Int, method: String, path: String, authority: String, status: String
        var description: String { "\(port)/\(stream) \(method) \(authority)\(path) → \(status)" }
    }

    static func extract() throws -> CaptureExtraction {
        try CaptureFileExtractor.extract(path: WildDefectCaptureTests.fixtures.appendingPathComponent("h2-streams.pcap").path)
    }

    @Test func streamsAreFlows() throws {
        let x = try Self.extract()
        #expect(x.statistics.http2Connections == 2 && x.statistics.http2Problems == 0, "\(x.warnings)")
        let h2 = x.flows.filter { $0.extras["_streamId"] != nil }
        // In the order streams completed: 7 was reset before the server answered anything.
        #expect(h2.map { $0.extras["_streamId"] ?? "" } == ["7", "1", "3", "5", "1", "3"])
        #expect(h2.allSatisfy { $0.request?.head.version.description == "HTTP/2.0" })
        let post = try #require(h2.first { $0.request?.method == "POST" })
        #expect(String(decoding: post.request?.body ?? [], as: UTF8.self) == "{\"device\":{\"idfa\":\"\(Self.idfa)\"}}")
        #expect(post.request?.headers["content-type"] == "application/json")
        #expect(post.request?.headers["user-agent"] == "app/1.0")  // from the dynamic table
        #expect(post.response?.status == 201)
        let continued = try #require(h2.first { $0.request?.path == "/v1/cont" })
        #expect(continued.request?.headers["x-idfa"] == Self.idfa)
        #expect(continued.response.map { String(decoding: $0.body, as: UTF8.self) } == "cont")  // padding removed
        let reset = try #require(h2.first { $0.request?.path == "/v1/cancel" })
        #expect(reset.response == nil && reset.error?.contains("client reset the stream (CANCEL)") == true)
        #expect(h2[1].request?.url == "http://t.example/v1/ad?idfa=\(Self.idfa)")
        let upgraded = try #require(h2.first { $0.request?.path.hasPrefix("/h2c") == true })
        #expect(upgraded.response.map { String(decoding: $0.body, as: UTF8.self) } == "upgraded")
        // The upgrade request is also its HTTP/1.1 flow with the 101.
        #expect(x.flows.contains { $0.response?.status == 101 && $0.extras["_streamId"] == nil })
    }

    @Test(.requires(.tshark)) func sameRequestsAsTshark() throws {
        let x = try Self.extract()
        let ours = Set(x.flows.filter { $0.extras["_streamId"] != nil }.compactMap { f -> Row? in
            guard let r = f.request, let stream = Int(f.extras["_streamId"] ?? "") else { return nil }
            return Row(port: f.client?.port ?? 0, stream: stream, method: r.method, path: r.pathAndQuery, authority: r.authority,
                       status: f.response.map { String($0.status) } ?? "")
        })
        let path = WildDefectCaptureTests.fixtures.appendingPathComponent("h2-streams.pcap").path
        let lines = try CaptureAgainstHARTests.tshark(["-r", path, "-d", "tcp.port==8080,http2", "-O", "http2", "-Y", "http2"])
        // Header lines belong to the stream of the HEADERS or CONTINUATION frame above them.
        var fields: [String: [String: String]] = [:]
        var port = 0, current = ""
        for line in lines {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("Transmission Control Protocol, Src Port: ") {
                let numbers = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                port = numbers.count >= 2 ? max(numbers[0], numbers[1]) : 0
            } else if text.hasPrefix("Stream: HEADERS, Stream ID: ") || text.hasPrefix("Stream: CONTINUATION, Stream ID: ") {
                let id = text.split(separator: ",")[1].split(separator: ":")[1].trimmingCharacters(in: .whitespaces)
                current = "\(port)/\(id)"
            } else if text.hasPrefix("Header: ") {
                let rest = text.dropFirst("Header: ".count)
                let split = rest.dropFirst().firstIndex(of: ":") ?? rest.endIndex
                let name = String(rest[..<split]), value = rest[split...].dropFirst().trimmingCharacters(in: .whitespaces)
                if fields[current]?[name] == nil { fields[current, default: [:]][name] = value }
            }
        }
        var theirs = Set<Row>()
        for (key, f) in fields {
            guard let method = f[":method"] else { continue }
            let parts = key.split(separator: "/")
            theirs.insert(Row(port: Int(parts[0]) ?? 0, stream: Int(parts[1]) ?? 0, method: method, path: f[":path"] ?? "",
                              authority: f[":authority"] ?? "", status: fields[key + "-response"]?[":status"] ?? ""))
        }
        // Statuses: tshark lists them on the same stream key; ":status: 200 OK" → "200".
        let statuses = Dictionary(uniqueKeysWithValues: fields.compactMap { key, f in
            f[":status"].map { (key, String($0.prefix(3))) }
        })
        theirs = Set(theirs.map { var r = $0; r.status = statuses["\(r.port)/\(r.stream)"] ?? ""; return r })
        // The h2c upgrade's stream 1: its request was HTTP/1.1 (no :method for tshark), its answer HTTP/2.
        theirs.insert(Row(port: 40011, stream: 1, method: "GET", path: "/h2c?idfa=\(Self.idfa)", authority: "t.example",
                          status: statuses["40011/1"] ?? ""))
        #expect(theirs.count == 6)
        #expect(ours == theirs, "ours: \(ours.sorted { $0.description < $1.description }) tshark: \(theirs.sorted { $0.description < $1.description })")
    }
}
