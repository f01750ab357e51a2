import Foundation
import MouchardWire

/// A pcap file that is rotated once it grows above `maxBytes`: the full file is renamed
/// `NAME-0001.pcap`, `NAME-0002.pcap`... (oldest first) and a fresh `NAME.pcap` is started, so
/// the live file keeps its name and nothing captured is overwritten. Flushed per packet unless
/// `flushesEachPacket` is false (then by `flush()`).
public final class RotatingPcapWriter {
    public let path: String
    public let linkType: LinkType
    public let maxBytes: Int
    private var writer: PcapFileWriter
    private var bytes = 0
    public private(set) var packetsWritten = 0
    /// The rotated files, oldest first.
    public private(set) var rotatedFiles: [String] = []

    /// A pcap file's global header and each packet's record header.
    static let fileHeaderBytes = 24
    static let recordHeaderBytes = 16

    public let flushesEachPacket: Bool

    public init(path: String, linkType: LinkType, maxBytes: Int, flushesEachPacket: Bool = true) throws {
        self.path = path
        self.linkType = linkType
        self.maxBytes = max(maxBytes, Self.fileHeaderBytes + Self.recordHeaderBytes + 1)
        self.flushesEachPacket = flushesEachPacket
        writer = try PcapFileWriter(path: path, linkType: linkType)
        writer.flushesEachPacket = flushesEachPacket
        bytes = Self.fileHeaderBytes
    }

    public func write(_ packet: CapturedPacket) throws {
        let size = Self.recordHeaderBytes + packet.data.count
        if bytes + size > maxBytes && bytes > Self.fileHeaderBytes { try rotate() }
        try writer.write(packet)
        bytes += size
        packetsWritten += 1
    }

    public func flush() throws { try writer.flush() }

    public func close() { writer.close() }

    /// `traffic.pcap` → `traffic-0001.pcap`.
    static func rotatedName(_ path: String, index: Int) -> String {
        let number = String(index)
        let padded = String(repeating: "0", count: max(0, 4 - number.count)) + number
        if path.hasSuffix(".pcap") { return String(path.dropLast(5)) + "-\(padded).pcap" }
        return path + "-\(padded)"
    }

    private func rotate() throws {
        writer.close()
        var index = rotatedFiles.count + 1
        var target = Self.rotatedName(path, index: index)
        while FileManager.default.fileExists(atPath: target) {
            index += 1
            target = Self.rotatedName(path, index: index)
        }
        guard rename(path, target) == 0 else { throw PcapError("rotate '\(path)'", "cannot rename it to '\(target)'") }
        rotatedFiles.append(target)
        writer = try PcapFileWriter(path: path, linkType: linkType)
        writer.flushesEachPacket = flushesEachPacket
        bytes = Self.fileHeaderBytes
    }
}
