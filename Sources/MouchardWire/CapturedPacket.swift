/// One frame read from a capture (file or live): when, on which link type, the captured bytes,
/// and where its record starts in the file (for error messages and golden tests).
public struct CapturedPacket: Sendable {
    /// Seconds since the Unix epoch.
    public var timestamp: Double
    public var linkType: LinkType
    /// The captured bytes (possibly fewer than `originalLength` when the snap length cut them).
    public var data: ArraySlice<UInt8>
    public var originalLength: Int
    /// Byte offset of the packet's record in its file; -1 for live packets.
    public var fileOffset: Int

    public init(timestamp: Double, linkType: LinkType, data: ArraySlice<UInt8>, originalLength: Int, fileOffset: Int = -1) {
        self.timestamp = timestamp
        self.linkType = linkType
        self.data = data
        self.originalLength = originalLength
        self.fileOffset = fileOffset
    }
}

/// Why a capture file could not be read further: what is wrong and at which byte of the file.
/// Everything before `offset` was decoded and is kept.
public struct CaptureFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The first bytes are neither pcap nor pcapng.
        case badMagic = "not a pcap or pcapng file"
        /// The file ends in the middle of a header or record.
        case truncated = "file cut short"
        /// A header or record is inconsistent (garbage in the file).
        case corrupt = "corrupt record"
        /// A valid file using a feature we do not read.
        case unsupported = "unsupported"
    }
    public var kind: Kind
    public var offset: Int
    public var detail: String

    public init(_ kind: Kind, at offset: Int, _ detail: String) {
        self.kind = kind
        self.offset = offset
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue) at byte \(offset): \(detail)" }
}
