import Testing
@testable import MouchardInspection

/// The JSON walk writes paths in a `JSONPathBuffer`: the texts it makes must be the paths joined
/// as strings, also when a path outgrows the walk's stack buffer or a key is escaped or not UTF-8.
@Suite("JSON path buffer")
struct JSONPathBufferTests {
    @Test func writesTakesBackAndGrowsPastItsFirstMemory() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { memory in
            var path = JSONPathBuffer(memory: memory)
            path.append("body:$")
            path.append(UInt8(ascii: "."))
            path.append("list")
            let mark = path.count
            for i in [0, 9, 10, 12345] {
                path.appendIndex(i)
                #expect(path.text() == "body:$.list[\(i)]")
                path.truncate(to: mark)
            }
            #expect(path.text() == "body:$.list")
            let long = String(repeating: "k", count: 300)
            path.append(UInt8(ascii: "."))
            path.append(long)
            #expect(path.text() == "body:$.list." + long)
            path.truncate(to: 0)
            #expect(path.text().isEmpty)
            path.freeOwnMemory()
        }
    }

    func locations(_ body: [UInt8]) -> [String: String] {
        let r = TestSupport.request("POST", "https://a.example/e", headers: [("Content-Type", "application/json")], body: body)
        var out: [String: String] = [:]
        for f in FieldExtractor().extract(r).fields { out[String(decoding: f.bytes, as: UTF8.self)] = f.origin.location }
        return out
    }

    @Test func longPathsPastTheStackBufferAreWhole() {
        // Ten levels of 40-byte keys: the paths outgrow the walk's 256 stack bytes.
        let keys = (0..<10).map { "key\($0)-" + String(repeating: "x", count: 35) }
        var text = #""leaf":"needle-deep","list":[1,"needle-item"]"#
        var sibling = ""
        for (i, k) in keys.enumerated().reversed() {
            sibling = #""s\#(i)":"needle-\#(i)","#
            text = "\(sibling)\"\(k)\":{\(text)}"
        }
        let found = locations(Array("{\(text)}".utf8))
        let deep = "body:$." + keys.joined(separator: ".")
        #expect(found["needle-deep"] == deep + ".leaf")
        #expect(found["needle-item"] == deep + ".list[1]")
        #expect(found["needle-0"] == "body:$.s0")
        #expect(found["needle-9"] == "body:$." + keys.prefix(9).joined(separator: ".") + ".s9")
    }

    @Test func escapedAndNonUTF8KeysArePathsAsJoinedText() {
        let escaped = locations(Array(#"{"a\"b":{"\u00e9t\u00e9":"needle-esc"}}"#.utf8))
        #expect(escaped["needle-esc"] == "body:$.a\"b.été")
        // A key holding bytes that are not UTF-8 reads as its repaired text, as a joined path did.
        let key: [UInt8] = [0x6B, 0xE2, 0x82, 0xFF, 0x6B]
        let body = Array(#"{""#.utf8) + key + Array(#"":{"x":"needle-bad","y":[0,"needle-bad2"]}}"#.utf8)
        let found = locations(body)
        let keyText = String(decoding: key, as: UTF8.self)
        #expect(found["needle-bad"] == "body:$." + keyText + ".x")
        #expect(found["needle-bad2"] == "body:$." + keyText + ".y[1]")
    }
}
