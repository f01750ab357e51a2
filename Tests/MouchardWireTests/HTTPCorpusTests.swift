import Foundation
import MouchardTestSupport
import MouchardWire
import Testing

/// HAR files of app traffic (the fixtures', and the dev corpus's when it is there), written as HTTP/1
/// and read back: real app headers, query strings and bodies must come out exactly as they went in,
/// in one stream of pipelined messages.
@Suite struct HTTPCorpusTests {
    @Test(arguments: TestFiles.fixtureDevices)
    func fixtureRequestsSurviveSerializeAndParse(device: String) throws {
        try Self.checkSerializeAndParse(TestFiles.fixture(device, "traffic.har"), atLeast: 30)
    }

    @Test(.requires(.dev), arguments: ["android", "ios"])
    func devCorpusRequestsSurviveSerializeAndParse(device: String) throws {
        try Self.checkSerializeAndParse(OutsideCorpus.dev.file("\(device)/traffic.har"), atLeast: 100)
    }

    static func checkSerializeAndParse(_ har: URL, atLeast minimum: Int) throws {
        let data = try Data(contentsOf: har)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        var expected: [HTTPParsedRequest] = []
        var stream: [UInt8] = []
        for entry in entries {
            let request = try #require(entry["request"] as? [String: Any])
            let urlString = try #require(request["url"] as? String)
            let url = try #require(URLComponents(string: urlString))
            let body = Array(((request["postData"] as? [String: Any])?["text"] as? String ?? "").utf8)
            var headers = HTTPHeaders()
            for h in request["headers"] as? [[String: String]] ?? [] where h["name"]?.lowercased() != "content-length" {
                headers.add(name: h["name"] ?? "", value: h["value"] ?? "")
            }
            // Bodies the app sent chunked are re-chunked by the serializer; the others get a length.
            if !body.isEmpty, !headers.contains("Transfer-Encoding") { headers.add(name: "Content-Length", value: String(body.count)) }
            let target = url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
            let method = try #require(request["method"] as? String)
            let message = HTTPParsedRequest(head: HTTPRequestHead(method: method, target: target, headers: headers), body: body)
            HTTPSerializer.appendMessage(message, to: &stream)
            expected.append(message)
        }
        #expect(expected.count >= minimum)
        // Fed in uneven pieces, as a socket would deliver them.
        var reader = HTTPMessageReader(parser: HTTPRequestParser())
        var parsed: [HTTPParsedRequest] = []
        var i = 0
        var step = 1
        while i < stream.count {
            let end = min(stream.count, i + step)
            try reader.feed(stream[i..<end], into: &parsed)
            i = end
            step = step * 3 % 1021 + 1
        }
        try reader.finish(into: &parsed)
        #expect(parsed == expected)
    }
}
