import MouchardWire
import Testing

@testable import MouchardSniffer

/// The capture decoder on hand-made frames: how a stream ends decides what its flow holds.
@Suite struct HTTP2CaptureDecoderTests {
    /// A frame: 24-bit length, type, flags, stream id, payload (RFC 9113 §4.1).
    static func frame(_ type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let n = UInt32(payload.count)
        let length: [UInt8] = [UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
        let id: [UInt8] = [UInt8(truncatingIfNeeded: stream >> 24) & 0x7F, UInt8(truncatingIfNeeded: stream >> 16),
                           UInt8(truncatingIfNeeded: stream >> 8), UInt8(truncatingIfNeeded: stream)]
        return length + [type, flags] + id + payload
    }

    /// A header block of literal fields without indexing, names and values as plain strings (RFC 7541 §6.2.2).
    static func block(_ fields: [(String, String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (name, value) in fields {
            out.append(0x00)
            out.append(UInt8(name.utf8.count))
            out += Array(name.utf8)
            out.append(UInt8(value.utf8.count))
            out += Array(value.utf8)
        }
        return out
    }

    static let endStream: UInt8 = 0x1, endHeaders: UInt8 = 0x4
    static let request = block([(":method", "POST"), (":scheme", "https"), (":path", "/v1/events"), (":authority", "api.example")])
    static let response = block([(":status", "200")])
    static let resetNoError = frame(0x3, flags: 0, stream: 1, [0, 0, 0, 0])

    /// Client direction 0: the preface and the request's HEADERS (no END_STREAM: a body follows).
    static func decoder() throws -> (HTTP2CaptureDecoder, [HTTP2CaptureDecoder.Exchange]) {
        let d = try HTTP2CaptureDecoder(clientDirection: 0, requestBodyLimit: 1 << 16, responseBodyLimit: 1 << 16)
        let out = d.feed(direction: 0, bytes: (PcapFlowExtractor.http2Preface + frame(0x1, flags: endHeaders, stream: 1, request))[...], time: 1)
        return (d, out)
    }

    /// The server answers before the body and stops the upload with RST_STREAM(NO_ERROR) (RFC 9113
    /// §8.1); the DATA the client had already sent follows in the capture and is the request's body.
    @Test func theBodyAfterAServersNoErrorResetBelongsToTheRequest() throws {
        let (d, early) = try Self.decoder()
        #expect(early.isEmpty)
        let answered = d.feed(direction: 1, bytes: (Self.frame(0x1, flags: Self.endHeaders | Self.endStream, stream: 1, Self.response)
                                                    + Self.resetNoError)[...], time: 2)
        #expect(answered.isEmpty, "the stream waits for the request's last DATA")
        let body = Array("{\"ifa\":\"x\"}".utf8)
        let done = d.feed(direction: 0, bytes: Self.frame(0x0, flags: Self.endStream, stream: 1, body)[...], time: 3)
        let e = try #require(done.first)
        #expect(e.request.body == body && e.request.incomplete == nil && !e.request.bodyTruncated)
        #expect(e.response?.responseHead?.status == 200 && e.response?.incomplete == nil)
    }

    /// When the client's END_STREAM never comes, the stream goes out when the connection ends, its
    /// request marked cut with the reason.
    @Test func anUploadStoppedForGoodIsCutWithItsReason() throws {
        let (d, _) = try Self.decoder()
        _ = d.feed(direction: 1, bytes: (Self.frame(0x1, flags: Self.endHeaders | Self.endStream, stream: 1, Self.response)
                                        + Self.resetNoError)[...], time: 2)
        let e = try #require(d.finish(reason: "connection closed").first)
        #expect(e.request.incomplete == HTTP2CaptureDecoder.uploadStopped)
        #expect(e.response?.incomplete == nil)
    }

    /// Any other reset ends the stream at once, with who reset it and the code.
    @Test func otherResetsEndTheStreamAtOnce() throws {
        let (d, _) = try Self.decoder()
        let out = d.feed(direction: 1, bytes: Self.frame(0x3, flags: 0, stream: 1, [0, 0, 0, 8])[...], time: 2)
        let e = try #require(out.first)
        #expect(e.request.incomplete == "server reset the stream (CANCEL)")
        #expect(e.response == nil)
    }
}
