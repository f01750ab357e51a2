/// Encodes pcapng blocks (little-endian, one section): what `export --pcapng` writes. Pure: each
/// function returns the bytes of one block, padded to 32 bits, with its length trailer.
///
/// A file is a Section Header Block, the Interface Description Blocks, Decryption Secrets Blocks
/// (before the packets they decrypt: Wireshark reads them in order) and Enhanced Packet Blocks.
public enum PcapngBlocks {
    public static let sectionHeaderType: UInt32 = 0x0A0D_0D0A
    public static let interfaceDescriptionType: UInt32 = 1
    public static let enhancedPacketType: UInt32 = 6
    static let byteOrderMagic: UInt32 = 0x1A2B_3C4D

    public static func sectionHeader(application: String) -> [UInt8] {
        var body: [UInt8] = []
        append32(byteOrderMagic, to: &body)
        append16(1, to: &body)           // major version
        append16(0, to: &body)           // minor version
        body += [UInt8](repeating: 0xFF, count: 8)  // section length: not given
        appendOption(code: 4, value: Array(application.utf8), to: &body)  // shb_userappl
        appendOption(code: 0, value: [], to: &body)
        return block(sectionHeaderType, body)
    }

    /// An interface with microsecond timestamps (the default resolution).
    public static func interfaceDescription(linkType: UInt16, snapLength: UInt32 = 262_144) -> [UInt8] {
        var body: [UInt8] = []
        append16(linkType, to: &body)
        append16(0, to: &body)
        append32(snapLength, to: &body)
        return block(interfaceDescriptionType, body)
    }

    /// A Decryption Secrets Block (type 0x0000000A); `secretsType` 0x544c534b is an NSS key log.
    public static func decryptionSecrets(secretsType: UInt32 = CaptureFileParser.tlsKeyLogSecretsType, data: [UInt8]) -> [UInt8] {
        var body: [UInt8] = []
        append32(secretsType, to: &body)
        append32(UInt32(data.count), to: &body)
        body += data
        pad(&body)
        return block(CaptureFileParser.decryptionSecretsBlockType, body)
    }

    /// A packet of interface `interface` at `timestamp` (seconds since 1970, microsecond units).
    public static func enhancedPacket<C: Collection>(interface: UInt32 = 0, timestamp: Double, data: C,
                                                     originalLength: Int? = nil) -> [UInt8] where C.Element == UInt8 {
        var body: [UInt8] = []
        body.reserveCapacity(20 + data.count + 3)
        append32(interface, to: &body)
        let units = UInt64(max(0, (timestamp * 1_000_000).rounded()))
        append32(UInt32(units >> 32), to: &body)
        append32(UInt32(units & 0xFFFF_FFFF), to: &body)
        append32(UInt32(data.count), to: &body)
        append32(UInt32(max(originalLength ?? data.count, data.count)), to: &body)
        body.append(contentsOf: data)
        pad(&body)
        return block(enhancedPacketType, body)
    }

    static func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
        let total = UInt32(12 + body.count)
        var out: [UInt8] = []
        out.reserveCapacity(Int(total))
        append32(type, to: &out)
        append32(total, to: &out)
        out += body
        append32(total, to: &out)
        return out
    }

    static func appendOption(code: UInt16, value: [UInt8], to body: inout [UInt8]) {
        append16(code, to: &body)
        append16(UInt16(value.count), to: &body)
        body += value
        pad(&body)
    }

    static func pad(_ bytes: inout [UInt8]) {
        while bytes.count % 4 != 0 { bytes.append(0) }
    }

    static func append16(_ v: UInt16, to out: inout [UInt8]) {
        out.append(UInt8(v & 0xFF))
        out.append(UInt8(v >> 8))
    }

    static func append32(_ v: UInt32, to out: inout [UInt8]) {
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
    }
}
