import MouchardCodec
import Testing

@Suite struct ContentDecoderTests {
    let text = Array("mouchard decodes what apps compress: \(String(repeating: "idfa=", count: 50))".utf8)

    @Test func gzipRoundTrip() throws {
        let z = gzipCompress(text)
        #expect(z.count < text.count)
        #expect(try ContentDecoder().decode(z, contentEncoding: "gzip") == text)
    }

    @Test func concatenatedGzipMembers() throws {
        let z = gzipCompress(Array("abc".utf8)) + gzipCompress(Array("def".utf8))
        #expect(try ContentDecoder().gunzip(z) == Array("abcdef".utf8))
    }

    @Test func bombHitsLimit() {
        let zeros = [UInt8](repeating: 0, count: 4 << 20)
        let z = gzipCompress(zeros)
        #expect(throws: ContentDecodingError.tooLarge(limit: 1 << 20)) {
            try ContentDecoder(limit: 1 << 20).gunzip(z)
        }
    }

    @Test func truncatedAndCorrupt() {
        let z = gzipCompress(text)
        #expect(throws: ContentDecodingError.truncated(coding: "gzip")) {
            try ContentDecoder().gunzip(Array(z.prefix(z.count / 2)))
        }
        #expect(throws: ContentDecodingError.self) { try ContentDecoder().gunzip([0x1f, 0x8b, 9, 9, 9, 9, 9, 9, 9, 9, 9]) }
        #expect(throws: ContentDecodingError.unsupported("zstd")) { try ContentDecoder().decode(z, contentEncoding: "zstd") }
    }

    @Test func rawDeflateIsAccepted() throws {
        // gzip minus its 10-byte header and 8-byte trailer is raw deflate.
        let z = gzipCompress(text)
        let raw = Array(z[10..<(z.count - 8)])
        #expect(try ContentDecoder().decode(raw, contentEncoding: "deflate") == text)
    }

    @Test func digestsMatchKnownVectors() {
        #expect(DigestAlgorithm.md5.hexDigest("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(DigestAlgorithm.sha1.hexDigest("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(DigestAlgorithm.sha256.hexDigest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
