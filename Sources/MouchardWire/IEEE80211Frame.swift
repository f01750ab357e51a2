/// IEEE 802.11 (Wi-Fi) frames as a monitor-mode capture holds them, optionally behind a radiotap
/// header (link type 127) that describes the radio. Only data frames carry IP: their body starts
/// with an LLC/SNAP header (AA AA 03, OUI, EtherType). A frame whose Protected bit is set is
/// encrypted (WPA/WEP); a capture decrypted with the network key (Wireshark's "export decrypted",
/// airdecap-ng) has that bit cleared and reads like an open network.
public enum IEEE80211Frame {
    /// What a frame turned out to be, when it carries no IP packet.
    public enum Kind: Sendable, Hashable {
        case management
        case control
        /// A data frame without a body (null function, QoS null).
        case noData
        /// A data frame whose body is encrypted.
        case protected
        /// A data frame whose body is not LLC/SNAP (vendor encapsulation, A-MSDU...).
        case notSNAP
        /// The radio reported a failed checksum: the frame is damaged.
        case badFCS
    }

    /// Frame types (bits 2-3 of the frame control field).
    static let typeManagement: UInt16 = 0
    static let typeControl: UInt16 = 1
    static let typeData: UInt16 = 2
    /// Frame control flags (second byte).
    static let flagToDS: UInt8 = 0x01
    static let flagFromDS: UInt8 = 0x02
    static let flagProtected: UInt8 = 0x40
    static let flagOrder: UInt8 = 0x80
    /// MAC header: frame control, duration, three addresses, sequence control.
    static let baseHeaderLength = 24
    /// LLC/SNAP with the RFC 1042 OUI (00 00 00) or the 802.1H bridge-tunnel one (00 00 F8).
    static let snapHeaderLength = 8
    /// Bytes of the frame check sequence some drivers leave at the end.
    static let fcsLength = 4

    /// The network payload of an 802.11 frame, or (as `.wifi(kind)`) what kind of frame it is when
    /// it carries none. Nil when the header is cut short. `hasFCS`: the last four bytes are the checksum.
    public static func payload(of frame: ArraySlice<UInt8>, hasFCS: Bool) -> LinkPayload? {
        var frame = frame
        if hasFCS {
            guard frame.count >= fcsLength else { return nil }
            frame = frame.dropLast(fcsLength)
        }
        guard let control = frame.le16(at: 0), let flags = frame.u8(at: 1) else { return nil }
        let type = (control >> 2) & 0x3
        let subtype = (control >> 4) & 0xF
        switch type {
        case typeManagement: return none(.management)
        case typeControl: return none(.control)
        case typeData: break
        default: return none(.control)  // type 3 is reserved/extension
        }
        var header = baseHeaderLength
        if flags & flagToDS != 0 && flags & flagFromDS != 0 { header += 6 }  // fourth address (WDS/mesh)
        let isQoS = subtype & 0x8 != 0
        if isQoS {
            header += 2
            if flags & flagOrder != 0 { header += 4 }  // HT control field
        }
        // Subtypes 4-7 and 12-15 carry no frame body (null function, CF-ACK/-Poll without data).
        if subtype & 0x4 != 0 { return frame.count >= header ? none(.noData) : nil }
        guard let body = frame.tail(from: header) else { return nil }
        if flags & flagProtected != 0 { return none(.protected) }
        guard body.u8(at: 0) == 0xAA, body.u8(at: 1) == 0xAA, body.u8(at: 2) == 0x03,
              let etherType = body.be16(at: 6), let rest = body.tail(from: snapHeaderLength) else {
            return body.isEmpty ? none(.noData) : none(.notSNAP)
        }
        return LinkLayerDecoder.payload(etherType: etherType, after: rest)
    }

    private static func none(_ kind: Kind) -> LinkPayload { LinkPayload(network: .wifi(kind), bytes: []) }

    /// A frame behind a radiotap header; nil when either header is cut short.
    public static func payloadAfterRadiotap(_ frame: ArraySlice<UInt8>) -> LinkPayload? {
        guard let info = RadiotapHeader.parse(frame), let rest = frame.tail(from: info.length) else { return nil }
        if info.badFCS { return none(.badFCS) }
        return payload(of: rest, hasFCS: info.hasFCS)
    }
}

/// The radiotap header (radiotap.org) that monitor-mode captures put before each 802.11 frame:
/// version 0, a pad byte, the little-endian header length, then presence bitmaps (bit 31 of each
/// says another follows) and the fields they announce, each aligned to its own size.
public enum RadiotapHeader {
    /// Presence bit of the TSFT field (8 bytes) and of the Flags field (1 byte), the first two.
    static let presentTSFT: UInt32 = 1 << 0
    static let presentFlags: UInt32 = 1 << 1
    static let presentExtended: UInt32 = 1 << 31
    /// Flags field bit: the frame ends with its 4-byte FCS.
    static let flagFCSAtEnd: UInt8 = 0x10
    /// Flags field bit: the frame failed its FCS check (the driver kept a damaged frame).
    static let flagBadFCS: UInt8 = 0x40
    /// Presence bitmaps beyond this many are garbage.
    static let maxPresenceWords = 16

    /// What the header says about the frame after it.
    public struct Info: Sendable, Hashable {
        /// Length of the radiotap header: the 802.11 frame starts there.
        public var length: Int
        /// The frame's last four bytes are its FCS.
        public var hasFCS: Bool
        /// The radio reported a bad FCS: the frame is damaged.
        public var badFCS: Bool
    }

    /// Parses the header at the start of `frame`; nil when it is not radiotap or is cut short.
    public static func parse(_ frame: ArraySlice<UInt8>) -> Info? {
        guard frame.u8(at: 0) == 0, let length16 = frame.le16(at: 2), let firstPresent = frame.le32(at: 4) else { return nil }
        let length = Int(length16)
        guard length >= 8, length <= frame.count else { return nil }
        // Walk the presence words to where the fields start.
        var offset = 4
        var word = firstPresent
        var words = 1
        while word & presentExtended != 0 {
            offset += 4
            words += 1
            guard words <= maxPresenceWords, offset + 4 <= length, let next = frame.le32(at: offset) else { return nil }
            word = next
        }
        offset += 4
        var flags: UInt8 = 0
        if firstPresent & presentTSFT != 0 {
            offset = (offset + 7) & ~7
            offset += 8
        }
        if firstPresent & presentFlags != 0 {
            guard offset < length, let f = frame.u8(at: offset) else { return nil }
            flags = f
        }
        return Info(length: length, hasFCS: flags & flagFCSAtEnd != 0, badFCS: flags & flagBadFCS != 0)
    }
}
