import Testing
@testable import MouchardInspection

/// `String(utf8Count:_:)` writes its pieces in order, and never past the count it was given.
@Suite struct UTF8WriterTests {
    @Test func writesThePiecesInOrder() {
        let host = "graph.facebook.com", small = "é→x"
        let text = String(utf8Count: 64) { w in
            w.write("https" as String)
            w.write("://" as StaticString)
            w.write(host)
            w.write(UInt8(ascii: "/"))
            Array(small.utf8).withUnsafeBufferPointer { w.write($0) }
        }
        #expect(text == "https://graph.facebook.com/é→x")
    }

    @Test func dropsWhatDoesNotFit() {
        let text = String(utf8Count: 5) { w in
            w.write("abc" as String)
            w.write("defgh" as StaticString)
            w.write(UInt8(ascii: "z"))
        }
        #expect(text == "abcde")
    }

    /// A constant of one Unicode scalar (which a StaticString may hold as the scalar, with no pointer to
    /// UTF-8 bytes) is written all the same.
    @Test func writesAOneScalarConstant() {
        let comma: StaticString = ","
        let arrow = StaticString(unicodeScalarLiteral: "→")
        let text = String(utf8Count: 8) { w in
            w.write("a" as String)
            w.write(comma)
            w.write(arrow)
        }
        #expect(text == "a,→")
    }
}
