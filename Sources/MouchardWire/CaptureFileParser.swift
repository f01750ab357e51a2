/// Reads the records of a pcap (microsecond or nanosecond, either byte order) or pcapng file from
/// bytes handed to it piece by piece, without doing any I/O itself: the caller reads the file in
/// chunks, so memory stays bounded whatever the file size.
///
/// We parse the file formats ourselves rather than through libpcap's offline reader because on a
/// bad record libpcap only says "truncated" without saying where, and we must report the byte
/// offset and keep everything decoded before it. libpcap stays in charge of live capture, BPF and
/// writing.
public struct CaptureFileParser: Sendable {
    /// The container format, known once the first bytes were seen.
    public enum Format: String, Sendable, Hashable { case pcap, pcapng }

    /// What one call to `next` found.
    public enum Step: Sendable {
        /// A packet whose record took `consumed` bytes of the buffer.
        case packet(CapturedPacket, consumed: Int)
        /// A header or a block with no packet (interface description, statistics...).
        case skipped(consumed: Int)
        /// A pcapng Decryption Secrets Block: its secrets type (`TLSK` = 0x544c534b is an NSS key
        /// log) and data, which apply to the packets of the file (Wireshark puts them before them).
        case decryptionSecrets(type: UInt32, data: ArraySlice<UInt8>, consumed: Int)
        /// The buffer holds only part of the next record: give more bytes.
        case needMore(atLeast: Int)
        /// The file ended cleanly at a record boundary.
        case end
    }

    public private(set) var format: Format?
    /// Absolute file offset of the first byte not yet consumed.
    public private(set) var offset = 0
    /// The pcap link type (pcap), or per interface (pcapng).
    public private(set) var linkTypes: [LinkType] = []

    /// A record or block larger than this is garbage (libpcap's own sanity limit is 256 KiB per packet;
    /// pcapng blocks may carry more).
    public static let maxRecordLength = 16 << 20
    /// Packet length above which a pcap record is considered garbage, whatever the header's snaplen.
    public static let maxPacketLength = 262_144 * 4

    private var bigEndian = false
    private var nanoseconds = false
    /// pcapng: per interface, units per second of its timestamps.
    private var resolutions: [Double] = []

    public init() {}

    /// Reads the next header or record from `buffer`, which must start at `offset`.
    /// `endOfFile` says no more bytes will come, so a partial record is a truncation.
    public mutating func next(_ buffer: ArraySlice<UInt8>, endOfFile: Bool) throws(CaptureFileError) -> Step {
        let step: Step
        switch format {
        case nil: step = try readFileHeader(buffer, endOfFile: endOfFile)
        case .pcap: step = try readPcapRecord(buffer, endOfFile: endOfFile)
        case .pcapng: step = try readPcapngBlock(buffer, endOfFile: endOfFile)
        }
        switch step {
        case .packet(_, let n), .skipped(let n), .decryptionSecrets(_, _, let n): offset += n
        case .needMore(let n) where endOfFile:
            throw CaptureFileError(.truncated, at: offset,
                                   "the next record needs \(n) bytes, the file has \(buffer.count) left")
        default: break
        }
        return step
    }

    private func u32(_ b: ArraySlice<UInt8>, _ o: Int) -> UInt32? { bigEndian ? b.be32(at: o) : b.le32(at: o) }
    private func u16(_ b: ArraySlice<UInt8>, _ o: Int) -> UInt16? { bigEndian ? b.be16(at: o) : b.le16(at: o) }

    private mutating func readFileHeader(_ b: ArraySlice<UInt8>, endOfFile: Bool) throws(CaptureFileError) -> Step {
        guard let magicLE = b.le32(at: 0) else {
            if endOfFile && b.isEmpty { throw CaptureFileError(.badMagic, at: 0, "the file is empty") }
            return .needMore(atLeast: 4)
        }
        switch magicLE {
        case 0xA1B2_C3D4, 0xA1B2_3C4D, 0xD4C3_B2A1, 0x4D3C_B2A1:
            bigEndian = magicLE == 0xD4C3_B2A1 || magicLE == 0x4D3C_B2A1
            nanoseconds = magicLE == 0xA1B2_3C4D || magicLE == 0x4D3C_B2A1
            guard b.count >= 24 else { return .needMore(atLeast: 24) }
            guard let major = u16(b, 4), major == 2 else {
                throw CaptureFileError(.unsupported, at: 4, "pcap version \(u16(b, 4) ?? 0) (only 2.x is read)")
            }
            let link = u32(b, 20) ?? 1
            format = .pcap
            linkTypes = [LinkType(rawValue: link & 0x0000_FFFF)]
            return .skipped(consumed: 24)
        case 0x0A0D_0D0A:
            guard b.count >= 12 else { return .needMore(atLeast: 12) }
            guard let bomLE = b.le32(at: 8), bomLE == 0x1A2B_3C4D || bomLE == 0x4D3C_2B1A else {
                throw CaptureFileError(.corrupt, at: 8, "pcapng section header without a valid byte-order magic")
            }
            format = .pcapng
            return try readPcapngBlock(b, endOfFile: endOfFile)
        default:
            let hex = b.prefix(4).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            throw CaptureFileError(.badMagic, at: 0, "magic 0x\(hex) is neither pcap nor pcapng")
        }
    }

    private mutating func readPcapRecord(_ b: ArraySlice<UInt8>, endOfFile: Bool) throws(CaptureFileError) -> Step {
        if b.isEmpty && endOfFile { return .end }
        guard let sec = u32(b, 0), let frac = u32(b, 4), let caplen = u32(b, 8), let origlen = u32(b, 12) else {
            return .needMore(atLeast: 16)
        }
        guard caplen <= CaptureFileParser.maxPacketLength else {
            throw CaptureFileError(.corrupt, at: offset,
                                   "record claims \(caplen) captured bytes (more than \(CaptureFileParser.maxPacketLength)): garbage in the file")
        }
        let total = 16 + Int(caplen)
        guard let data = b.field(at: 16, length: Int(caplen)) else { return .needMore(atLeast: total) }
        let ts = Double(sec) + Double(frac) / (nanoseconds ? 1e9 : 1e6)
        let packet = CapturedPacket(timestamp: ts, linkType: linkTypes.first ?? .ethernet, data: data,
                                    originalLength: Int(max(origlen, caplen)), fileOffset: offset)
        return .packet(packet, consumed: total)
    }

    private mutating func readPcapngBlock(_ b: ArraySlice<UInt8>, endOfFile: Bool) throws(CaptureFileError) -> Step {
        if b.isEmpty && endOfFile { return .end }
        guard let typeLE = b.le32(at: 0) else { return .needMore(atLeast: 8) }
        if typeLE == 0x0A0D_0D0A {
            // Section header: the byte-order magic sets the endianness of everything in the section.
            guard let bom = b.le32(at: 8) else { return .needMore(atLeast: 12) }
            switch bom {
            case 0x1A2B_3C4D: bigEndian = false
            case 0x4D3C_2B1A: bigEndian = true
            default: throw CaptureFileError(.corrupt, at: offset + 8, "pcapng section header with a bad byte-order magic")
            }
            linkTypes = []
            resolutions = []
        }
        guard let type = u32(b, 0), let length32 = u32(b, 4) else { return .needMore(atLeast: 8) }
        let length = Int(length32)
        guard length >= 12, length % 4 == 0, length <= CaptureFileParser.maxRecordLength else {
            throw CaptureFileError(.corrupt, at: offset, "pcapng block of type 0x\(String(type, radix: 16)) has an impossible length \(length)")
        }
        guard let block = b.field(at: 0, length: length) else { return .needMore(atLeast: length) }
        guard u32(block, length - 4) == length32 else {
            throw CaptureFileError(.corrupt, at: offset + length - 4, "pcapng block length trailer does not match its header (\(length))")
        }
        let body = block[(block.startIndex + 8)..<(block.endIndex - 4)]
        switch type {
        case 0x0A0D_0D0A:
            guard let major = u16(body, 4), major == 1 else {
                throw CaptureFileError(.unsupported, at: offset + 12, "pcapng version \(u16(body, 4) ?? 0) (only 1.x is read)")
            }
            return .skipped(consumed: length)
        case 1:  // Interface Description Block
            guard let link = u16(body, 0) else {
                throw CaptureFileError(.corrupt, at: offset, "interface description block too short")
            }
            linkTypes.append(LinkType(rawValue: UInt32(link)))
            resolutions.append(interfaceResolution(options: body.tail(from: 8) ?? []))
            return .skipped(consumed: length)
        case 6, 2:  // Enhanced Packet Block, obsolete Packet Block
            let interface: Int
            if type == 6 {
                guard let i = u32(body, 0) else { throw CaptureFileError(.corrupt, at: offset, "packet block too short") }
                interface = Int(i)
            } else {
                guard let i = u16(body, 0) else { throw CaptureFileError(.corrupt, at: offset, "packet block too short") }
                interface = Int(i)
            }
            guard let hi = u32(body, 4), let lo = u32(body, 8), let caplen = u32(body, 12), let origlen = u32(body, 16) else {
                throw CaptureFileError(.corrupt, at: offset, "packet block too short")
            }
            guard interface < linkTypes.count else {
                throw CaptureFileError(.corrupt, at: offset, "packet on interface \(interface) which was never described")
            }
            guard let data = body.field(at: 20, length: Int(caplen)) else {
                throw CaptureFileError(.corrupt, at: offset, "packet block claims \(caplen) bytes, its block holds \(body.count - 20)")
            }
            let units = Double(UInt64(hi) << 32 | UInt64(lo))
            let packet = CapturedPacket(timestamp: units / resolutions[interface], linkType: linkTypes[interface], data: data,
                                        originalLength: Int(max(origlen, caplen)), fileOffset: offset)
            return .packet(packet, consumed: length)
        case 3:  // Simple Packet Block: interface 0, no timestamp
            guard let origlen = u32(body, 0), !linkTypes.isEmpty else {
                throw CaptureFileError(.corrupt, at: offset, "simple packet block without an interface")
            }
            let data = body.tail(from: 4) ?? []
            let caplen = min(Int(origlen), data.count)
            let packet = CapturedPacket(timestamp: 0, linkType: linkTypes[0], data: data.prefix(caplen),
                                        originalLength: Int(origlen), fileOffset: offset)
            return .packet(packet, consumed: length)
        case CaptureFileParser.decryptionSecretsBlockType:
            guard let secretsType = u32(body, 0), let secretsLength = u32(body, 4),
                  let data = body.field(at: 8, length: Int(secretsLength)) else {
                throw CaptureFileError(.corrupt, at: offset, "decryption secrets block shorter than the secrets it announces")
            }
            return .decryptionSecrets(type: secretsType, data: data, consumed: length)
        default:
            return .skipped(consumed: length)
        }
    }

    /// pcapng block type of a Decryption Secrets Block.
    public static let decryptionSecretsBlockType: UInt32 = 0x0000_000A
    /// DSB secrets type of an NSS key log (`TLSK`).
    public static let tlsKeyLogSecretsType: UInt32 = 0x544C_534B

    /// `if_tsresol` (option 9) of an interface: units per second (default microseconds).
    private func interfaceResolution(options: ArraySlice<UInt8>) -> Double {
        var o = 0
        var guardCount = 0
        while let code = u16(options, o), let len = u16(options, o + 2), code != 0, guardCount < 1000 {
            guardCount += 1
            if code == 9, let v = options.u8(at: o + 4) {
                let exponent = Double(v & 0x7F)
                let r = v & 0x80 == 0 ? pow10(exponent) : pow2(exponent)
                return r > 0 && r.isFinite ? r : 1e6
            }
            o += 4 + (Int(len) + 3) / 4 * 4
        }
        return 1e6
    }

    private func pow10(_ e: Double) -> Double { var r = 1.0; for _ in 0..<Int(min(e, 30)) { r *= 10 }; return r }
    private func pow2(_ e: Double) -> Double { var r = 1.0; for _ in 0..<Int(min(e, 64)) { r *= 2 }; return r }
}
