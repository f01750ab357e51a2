import MouchardCapture
import MouchardFlow
import MouchardWire

/// Reads a pcap or pcapng file (detected by its magic bytes) into a `CaptureExtraction`: the
/// loader `scan` uses. A bad record ends the reading with `readError` (what and at which byte);
/// everything decoded before it is kept.
public enum CaptureFileExtractor {
    /// True when the file starts with a pcap or pcapng magic number.
    public static func isCaptureFile(header: [UInt8]) -> Bool {
        guard header.count >= 4 else { return false }
        let m = header[...].le32(at: 0) ?? 0
        return [0xA1B2_C3D4, 0xA1B2_3C4D, 0xD4C3_B2A1, 0x4D3C_B2A1, 0x0A0D_0D0A].contains(m)
    }

    /// What a file that is no capture looks like, from its first bytes (at least 64 when it has
    /// them) and size: `empty file`, `looks like a Git LFS pointer...`; nil when it could be JSON
    /// (HAR or findings, read as such) or nothing recognizable.
    public static func nonCaptureDescription(header: [UInt8], fileSize: Int) -> String? {
        if fileSize == 0 { return "empty file" }
        if header.starts(with: Array("version https://git-lfs.github.com/spec/".utf8)) {
            return "looks like a Git LFS pointer, not the file itself (fetch it with git lfs pull)"
        }
        if header.starts(with: [0x1F, 0x8B]) { return "looks like a gzip-compressed file (decompress it first)" }
        if header.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "looks like a zip archive (extract it first)" }
        if header.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { return "looks like a zstd-compressed file (decompress it first)" }
        if header.starts(with: Array("<".utf8)) { return "looks like an HTML or XML file" }
        return nil
    }

    /// True when the first non-space byte opens a JSON object or array (a HAR or findings file).
    public static func looksLikeJSON(header: [UInt8]) -> Bool {
        var bytes = header[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Extracts everything. Throws only when the file cannot be opened or read.
    /// `onFlow` sees flows as they complete; with `collect: false` they are not kept in the result.
    public static func extract(path: String, limits: ReassemblyLimits = ReassemblyLimits(), collect: Bool = true,
                               keys: TLSKeyStore? = nil, onFlow: ((Flow) -> Void)? = nil) throws -> CaptureExtraction {
        try extract(path: path, limits: limits, collect: collect, keys: keys, onDNS: nil, onFlow: onFlow)
    }

    /// `extract` that also hands each DNS answer to `onDNS` as it is read (with `collect: false`
    /// neither flows nor DNS answers are kept in the result).
    /// `keys` decrypts TLS (pcapng secrets blocks in the file are added to them, or used alone).
    /// `progress` is told the file offset of each packet read (for a progress line).
    public static func extract(path: String, limits: ReassemblyLimits = ReassemblyLimits(), collect: Bool = true,
                               keys: TLSKeyStore? = nil, progress: ((Int) -> Void)? = nil,
                               onDNS: ((DNSObservation) -> Void)?, onFlow: ((Flow) -> Void)?) throws -> CaptureExtraction {
        let extractor = PcapFlowExtractor(limits: limits, collect: collect, keys: keys)
        extractor.onFlow = onFlow
        extractor.onDNS = onDNS
        let secrets: (UInt32, ArraySlice<UInt8>) -> Void = { type, data in extractor.addSecretsBlock(type: type, data: data) }
        let outcome = try CaptureFileReader(path: path).forEachPacket(secrets: secrets) { packet in
            extractor.process(packet)
            progress?(packet.fileOffset)
        }
        return extractor.finish(readError: outcome.error, format: outcome.format?.rawValue)
    }
}
