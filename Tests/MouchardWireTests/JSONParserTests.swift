import MouchardWire
import Testing

/// The shared JSON parser (request bodies, rule files, device profiles, HAR files, trackers.json):
/// values with their offsets, `line:column` through `TextLocator`, bounded nesting, refusals.
@Suite struct JSONParserTests {
    @Test func valuesEscapesAndPositions() throws {
        let bytes = Array("{\n  \"a\": [1, -2.5e1, true, null],\n  \"b\": \"\\u00e9\\n\\ud83d\\ude00\"\n}".utf8)
        let json = try JSONParser().parse(bytes)
        let members = try #require(json.members)
        #expect(members.map(\.key) == ["a", "b"])
        #expect(members[0].keyOffset == 4)
        let key = TextLocator(bytes).position(of: members[0].keyOffset)
        #expect(key.line == 2 && key.column == 3)
        let items = try #require(members[0].value.elements)
        #expect(items.count == 4)
        #expect(items[1].kind == .number(Array("-2.5e1".utf8)) && items[1].doubleValue == -25)
        #expect(items[2] == JSONValue(offset: 21, kind: .bool(true)))
        let item = TextLocator(bytes).position(of: items[2].offset)
        #expect(item.line == 2 && item.column == 20)
        #expect(members[1].value.stringValue == "é\n😀")
    }

    @Test func nestingIsBounded() {
        let deep = Array((String(repeating: "[", count: 100) + String(repeating: "]", count: 100)).utf8)
        #expect(throws: JSONParseError(offset: 64, message: "nesting deeper than 64")) { try JSONParser(maxDepth: 64).parse(deep) }
        #expect(throws: Never.self) { try JSONParser(maxDepth: 128).parse(deep) }
    }

    @Test(arguments: ["1.", "-", "[1,]", "{\"a\" 1}", "tru", "\"\\x\"", "1 2", "{'a': 1}", "", "[1", "\"a"])
    func invalidJSONIsRefused(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser().parse(Array(text.utf8)) }
    }

    /// Lenient where request bodies need it: leading zeros, lone surrogates (U+FFFD), raw bytes.
    @Test func lenientWhereBodiesNeedIt() throws {
        #expect(try JSONParser().parse(Array("01".utf8)).kind == .number(Array("01".utf8)))
        #expect(try JSONParser().parse(Array(#""\ud800""#.utf8)).stringValue == "\u{FFFD}")
        #expect(try JSONParser().parse([0x22, 0xFF, 0x22]).kind == .string([0xFF]))
    }

    @Test func byteOrderMarkOnlyWhenAsked() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{}".utf8)
        #expect(throws: JSONParseError(offset: 0, message: "expected a value, found byte 0xef")) { try JSONParser().parse(bytes) }
        #expect(try JSONParser(skipsByteOrderMark: true).parse(bytes) == JSONValue(offset: 3, kind: .object([])))
    }

    @Test func writerKeepsOrderAndNumberText() throws {
        let text = Array(#"{"b":[1.50,-0,"x\"\n"],"a":{}}"#.utf8)
        let value = try JSONParser().parse(text)
        #expect(JSONWriter.serialize(value, pretty: false) == text)
        #expect(String(decoding: JSONWriter.serialize(value, pretty: true), as: UTF8.self)
                == "{\n  \"b\": [\n    1.50,\n    -0,\n    \"x\\\"\\n\"\n  ],\n  \"a\": {}\n}\n")
    }
}
