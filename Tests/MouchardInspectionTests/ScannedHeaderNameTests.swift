import Testing
@testable import MouchardInspection

/// The span scan tells the headers the walk does not read by their names' bytes
/// (`ScannedHeaderName`); its list must stay the walk's (`skippedHeaders` but `Cookie`).
@Suite struct ScannedHeaderNameTests {
    func kind(_ name: String) -> ScannedHeaderName {
        var name = name
        return name.withUTF8 { ScannedHeaderName($0) }
    }

    @Test func unreadNamesAreTheWalksSkippedHeaders() {
        for name in skippedHeaders {
            let expected = name != "cookie"
            #expect(kind(name).isUnread == expected, "\(name)")
            #expect(kind(name.uppercased()).isUnread == expected, "\(name)")
        }
        #expect(kind("Content-Type") == .contentType)
        #expect(kind("CONTENT-ENCODING") == .contentEncoding)
        #expect(kind("authorization") == .authorization)
        #expect(kind("Authorization") == .authorization)
    }

    /// Names a byte away from an unread one (or of another length) are read; `-` is no letter
    /// to fold (CR is not `-`).
    @Test func nearNamesAreRead() {
        var rng = SplitMix(seed: 0x4ead)
        let names = Array(skippedHeaders) + ["authorization", "user-agent", "x-te"]
        for _ in 0..<5_000 {
            var bytes = Array(names[Int(rng.next() % UInt64(names.count))].utf8)
            let at = Int(rng.next() % UInt64(bytes.count))
            switch rng.next() % 4 {
            case 0: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            case 1: bytes[at] ^= 0x20
            case 2: bytes.remove(at: at)
            default: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: at)
            }
            let folded = String(decoding: bytes.map(foldASCII), as: UTF8.self)
            let got = bytes.withUnsafeBufferPointer { ScannedHeaderName($0) }
            let unread = skippedHeaders.contains(folded) && folded != "cookie"
            #expect(got.isUnread == unread, "\(bytes)")
            #expect((got == .authorization) == (folded == "authorization"), "\(bytes)")
        }
    }
}
