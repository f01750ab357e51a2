import Foundation
import Testing
import MouchardSniffer
import MouchardTestSupport
import MouchardWire

/// Bad input: a file cut mid-record, a wrong magic, garbage in the middle. Each gives one clear
/// error naming the byte offset, and everything decoded before it is kept.
@Suite struct BadCaptureFileTests {
    /// A capture of three HTTP exchanges on three connections, and the file offset where each
    /// packet record starts.
    static func threeExchanges() -> (bytes: [UInt8], recordStarts: [Int]) {
        var b = PcapBuilder()
        var starts: [Int] = []
        for i in 0..<3 {
            var c = TCPConversation()
            c.clientPort = UInt16(52000 + i)
            starts.append(b.bytes.count)
            c.handshake(&b)
            c.send(&b, fromClient: true, GoldenReassemblyTests.request("GET", "/n\(i)"))
            c.send(&b, fromClient: false, GoldenReassemblyTests.response(body: "r\(i)"))
            c.close(&b)
        }
        return (b.bytes, starts)
    }

    static func extract(_ bytes: [UInt8]) throws -> CaptureExtraction {
        let dir = try TestFiles.temporaryDirectory("sniffer")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("bad.pcap")
        try Data(bytes).write(to: url)
        return try CaptureFileExtractor.extract(path: url.path)
    }

    @Test func truncatedMidRecordKeepsWhatCameBefore() throws {
        let (bytes, starts) = Self.threeExchanges()
        // Cut 10 bytes into the record that starts the third connection.
        let cut = starts[2] + 10
        let result = try Self.extract(Array(bytes[0..<cut]))
        let e = try #require(result.readError)
        #expect(e.kind == .truncated && e.offset == starts[2])
        #expect(e.description.hasPrefix("file cut short at byte \(starts[2]):"))
        #expect(result.flows.compactMap(\.request?.path) == ["/n0", "/n1"])
        #expect(result.warnings.last?.contains("at byte \(starts[2])") == true)
    }

    @Test func wrongMagicIsOneClearLine() throws {
        let result = try Self.extract(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        let e = try #require(result.readError)
        #expect(e.kind == .badMagic && e.offset == 0)
        #expect(e.description == "not a pcap or pcapng file at byte 0: magic 0x47455420 is neither pcap nor pcapng")
        #expect(result.flows.isEmpty)
    }

    @Test func garbageMidFileStopsAtItsOffset() throws {
        var (bytes, starts) = Self.threeExchanges()
        // Overwrite the record header at the start of the third connection with garbage.
        for i in starts[2]..<(starts[2] + 16) { bytes[i] = 0xEE }
        let result = try Self.extract(bytes)
        let e = try #require(result.readError)
        #expect(e.kind == .corrupt && e.offset == starts[2])
        #expect(result.flows.compactMap(\.request?.path) == ["/n0", "/n1"])
    }

    /// Breaks the length field of the 100th block of a real pcapng (not a multiple of 4): the reader
    /// stops there with that offset, after the packets before it.
    static func checkBadBlockLength(_ file: URL) throws {
        let dir = try TestFiles.temporaryDirectory("sniffer")
        defer { try? FileManager.default.removeItem(at: dir) }
        var data = try [UInt8](Data(contentsOf: file))
        var offset = 0
        for _ in 0..<100 {
            let length = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
            offset += length
        }
        data[offset + 4] = 0x03
        let url = dir.appendingPathComponent("bad.pcapng")
        try Data(data).write(to: url)
        let result = try CaptureFileExtractor.extract(path: url.path)
        let e = try #require(result.readError)
        #expect(e.kind == .corrupt && e.offset == offset)
        #expect(result.statistics.packets > 90)
    }

    @Test func pcapngWithBadBlockLengthStopsAtItsOffset() throws {
        try Self.checkBadBlockLength(TestFiles.fixture("ios", "traffic.pcapng"))
    }

    @Test(.requires(.dev)) func devCorpusPcapngWithBadBlockLengthStopsAtItsOffset() throws {
        try Self.checkBadBlockLength(OutsideCorpus.dev.file("ios/traffic.pcapng"))
    }

    @Test func missingFileThrows() {
        #expect(throws: (any Error).self) { try CaptureFileExtractor.extract(path: "/nonexistent/mouchard.pcap") }
    }
}
