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

    /// Extracts everything. Throws only when the file cannot be opened or read.
    /// `onFlow` sees flows as they complete; with `collect: false` they are not kept in the result.
    public static func extract(path: String, limits: ReassemblyLimits = ReassemblyLimits(), collect: Bool = true,
                               keys: TLSKeyStore? = nil, onFlow: ((Flow) -> Void)? = nil) throws -> CaptureExtraction {
        try extract(path: path, limits: limits, collect: collect, keys: keys, onDNS: nil, onFlow: onFlow)
    }

    /// `extract` that also hands each DNS answer to `onDNS` as it is read (with `collect: false`
    /// neither flows nor DNS answers are kept in the result).
    /// `keys` decrypts TLS (pcapng secrets blocks in the file are added to them, or used alone).
    public static func extract(path: String, limits: ReassemblyLimits = ReassemblyLimits(), collect: Bool = true,
                               keys: TLSKeyStore? = nil,
                               onDNS: ((DNSObservation) -> Void)?, onFlow: ((Flow) -> Void)?) throws -> CaptureExtraction {
        let extractor = PcapFlowExtractor(limits: limits, collect: collect, keys: keys)
        extractor.onFlow = onFlow
        extractor.onDNS = onDNS
        let outcome = try CaptureFileReader(path: path).forEachPacket(secrets: { type, data in
            extractor.addSecretsBlock(type: type, data: data)
        }) { extractor.process($0) }
        return extractor.finish(readError: outcome.error, format: outcome.format?.rawValue)
    }
}
