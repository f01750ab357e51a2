import MouchardHTTP2
@testable import MouchardProxy
import Testing

/// Raw HTTP/2 frames a well-behaved client library would never send (RFC 9113 §4.1 layout).
enum RawFrames {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let data: UInt8 = 0x0, headers: UInt8 = 0x1, rstStream: UInt8 = 0x3, settings: UInt8 = 0x4
    static let goaway: UInt8 = 0x7, continuation: UInt8 = 0x9
    static let endStream: UInt8 = 0x1, endHeaders: UInt8 = 0x4, ack: UInt8 = 0x1

    static func frame(_ type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, _ payload: [UInt8] = []) -> [UInt8] {
        let n = payload.count
        return [UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), type, flags,
                UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    /// The client preface, an empty SETTINGS and the ACK of the server's.
    static let opening = preface + frame(settings) + frame(settings, flags: ack)

    /// HPACK for `GET https://a.example/`: static-table indexes and one literal authority.
    static let getBlock: [UInt8] = [0x82, 0x87, 0x84, 0x01, 9] + Array("a.example".utf8)

    static func rst(_ stream: UInt32, code: UInt32 = HTTP2ErrorCode.cancel) -> [UInt8] {
        frame(rstStream, stream: stream, [UInt8(code >> 24), UInt8(code >> 16 & 0xFF), UInt8(code >> 8 & 0xFF), UInt8(code & 0xFF)])
    }

    /// The frames in `bytes` as (type, stream, payload), for reading what the proxy answered.
    static func parse(_ bytes: [UInt8]) -> [(type: UInt8, stream: UInt32, payload: [UInt8])] {
        var out: [(UInt8, UInt32, [UInt8])] = []
        var i = 0
        while i + 9 <= bytes.count {
            let n = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            guard i + 9 + n <= bytes.count else { break }
            let stream = UInt32(bytes[i + 5] & 0x7F) << 24 | UInt32(bytes[i + 6]) << 16 | UInt32(bytes[i + 7]) << 8 | UInt32(bytes[i + 8])
            out.append((bytes[i + 3], stream, Array(bytes[i + 9..<i + 9 + n])))
            i += 9 + n
        }
        return out
    }

    /// The error code of the GOAWAY in `bytes`, if any.
    static func goawayCode(_ bytes: [UInt8]) -> UInt32? {
        guard let f = parse(bytes).first(where: { $0.type == goaway }), f.payload.count >= 8 else { return nil }
        return f.payload[4..<8].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// The limits of the client-facing connection (docs/http2.md), each attacked with raw frames: the
/// connection ends with the right GOAWAY code, what the machine holds stays bounded, and another
/// connection is served normally meanwhile.
@Suite("HTTP/2 abuse limits")
struct HTTP2AbuseTests {
    /// Feeds raw client bytes to a fresh machine; returns it and everything it sent to the client.
    func attack(_ bytes: [UInt8], limits: HTTP2Limits = .standard) throws -> (HTTP2MachineRig, [UInt8]) {
        let rig = try HTTP2MachineRig(clientLimits: limits)
        _ = rig.bytesToPhone()  // our SETTINGS
        rig.phoneSendsRaw(bytes)
        return (rig, rig.bytesToPhone())
    }

    /// A normal request on another connection still gets its answer.
    func anotherConnectionWorks() throws {
        let rig = try HTTP2MachineRig()
        let id = try #require(rig.phone.submitRequest(HTTP2ProxyMachineTests.get, hasBody: false))
        rig.run()
        rig.origin.submitResponse(stream: 1, [HTTP2Field(":status", "204")], hasBody: false)
        rig.run()
        #expect(rig.phoneEvents.contains { if case .headers(id, .response, _, true) = $0 { true } else { false } })
    }

    @Test("rapid reset (CVE-2023-44487): past 1,000 HEADERS+RST_STREAM pairs, GOAWAY and the connection closes")
    func rapidReset() throws {
        var bytes = RawFrames.opening
        for i in 0..<3000 {
            let stream = UInt32(2 * i + 1)
            bytes += RawFrames.frame(RawFrames.headers, flags: RawFrames.endHeaders | RawFrames.endStream, stream: stream, RawFrames.getBlock)
            bytes += RawFrames.rst(stream)
        }
        // Read as a socket would, 16 KiB at a time, until the proxy closes the connection.
        let rig = try HTTP2MachineRig()
        _ = rig.bytesToPhone()
        var answer: [UInt8] = []
        var offset = 0
        while offset < bytes.count && !rig.clientClosed {
            rig.phoneSendsRaw(Array(bytes[offset..<min(offset + 16384, bytes.count)]))
            answer += rig.bytesToPhone()
            offset += 16384
        }
        // nghttp2's limiter answers INTERNAL_ERROR.
        #expect(RawFrames.goawayCode(answer) == HTTP2ErrorCode.internalError)
        #expect(rig.clientClosed)
        // Named as a failure (counted and logged by the session), though nghttp2 decided it alone.
        #expect(rig.machine.clientFailure?.hasPrefix("nghttp2 sent GOAWAY INTERNAL_ERROR") == true, "\(rig.machine.clientFailure ?? "")")
        #expect(!rig.machine.isBusy)
        #expect(offset < bytes.count)
        // The burst, and what came in the same read.
        #expect(rig.exchanges.count <= 1000 + 16384 / 26)
        #expect(rig.exchanges.allSatisfy { $0.error != nil })
        try anotherConnectionWorks()
    }

    @Test("HPACK bomb: a 16 KB block that decodes to 48 MB resets its stream at 64 KiB; 17 of them bring GOAWAY")
    func hpackBomb() throws {
        // One 4,000-byte field put in the dynamic table, then referenced 12,000 times (index 62).
        let value = [UInt8](repeating: UInt8(ascii: "x"), count: 4000)
        let literal: [UInt8] = [0x40, 0x01, UInt8(ascii: "x"), 0x7F, 0x81, 0x1E] + value  // length 127 + 3,841 = 4,000
        let block = RawFrames.getBlock + literal + [UInt8](repeating: 0xBE, count: 12_000)
        var one = RawFrames.opening
        one += RawFrames.frame(RawFrames.headers, flags: RawFrames.endHeaders | RawFrames.endStream, stream: 1, block)
        let (rig, answer) = try attack(one)
        let frames = RawFrames.parse(answer)
        #expect(frames.contains { $0.type == RawFrames.rstStream && $0.stream == 1 })
        #expect(RawFrames.goawayCode(answer) == nil)
        #expect(rig.machine.refusedHeaderBlocks == 1)
        #expect(!rig.machine.isBusy && rig.originEvents.isEmpty)

        var many = RawFrames.opening
        // Later blocks reference the entry already in the table.
        many += RawFrames.frame(RawFrames.headers, flags: RawFrames.endHeaders | RawFrames.endStream, stream: 1, block)
        for i in 1...17 {
            many += RawFrames.frame(RawFrames.headers, flags: RawFrames.endHeaders | RawFrames.endStream, stream: UInt32(2 * i + 1),
                                    RawFrames.getBlock + [UInt8](repeating: 0xBE, count: 12_000))
        }
        let (again, answer2) = try attack(many)
        #expect(RawFrames.goawayCode(answer2) == HTTP2ErrorCode.enhanceYourCalm)
        #expect(again.clientClosed)
        try anotherConnectionWorks()
    }

    @Test("CONTINUATION flood (CVE-2024-28182): a header block in 20 CONTINUATION frames brings GOAWAY")
    func continuationFlood() throws {
        var bytes = RawFrames.opening
        bytes += RawFrames.frame(RawFrames.headers, flags: RawFrames.endStream, stream: 1, RawFrames.getBlock)
        for _ in 0..<20 { bytes += RawFrames.frame(RawFrames.continuation, stream: 1, [0x40, 0x01, 0x61, 0x01, 0x62]) }
        let (rig, answer) = try attack(bytes)
        #expect(RawFrames.goawayCode(answer) == HTTP2ErrorCode.enhanceYourCalm)
        #expect(rig.clientClosed)
        #expect(rig.originEvents.isEmpty)
        try anotherConnectionWorks()
    }

    @Test("too many streams: past SETTINGS_MAX_CONCURRENT_STREAMS (100, acknowledged) the connection ends with PROTOCOL_ERROR")
    func tooManyStreams() throws {
        var bytes = RawFrames.opening
        for i in 0..<150 {
            bytes += RawFrames.frame(RawFrames.headers, flags: RawFrames.endHeaders, stream: UInt32(2 * i + 1), RawFrames.getBlock)
        }
        let (rig, answer) = try attack(bytes)
        #expect(RawFrames.goawayCode(answer) == HTTP2ErrorCode.protocolError)
        #expect(rig.clientClosed)
        #expect(rig.exchanges.count <= 100)
        try anotherConnectionWorks()
    }
}
