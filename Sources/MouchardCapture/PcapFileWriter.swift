import CPcap
import MouchardWire

/// Writes packets to a classic pcap file through libpcap's dumper, flushing after every packet
/// so that a crash or kill keeps everything captured so far (the session's `traffic.pcap`).
/// A caller under load may set `flushesEachPacket` to false and call `flush()` itself.
public final class PcapFileWriter {
    private let dead: OpaquePointer
    private var dumper: OpaquePointer?
    public let path: String
    public private(set) var packetsWritten = 0
    /// False: packets are buffered until `flush()` (the caller bounds what a crash may lose).
    public var flushesEachPacket = true

    public init(path: String, linkType: LinkType, snapLength: Int32 = LiveCapture.snapLength) throws {
        guard let d = pcap_open_dead(Int32(linkType.rawValue), snapLength) else {
            throw PcapError("cannot create '\(path)'", "pcap_open_dead failed")
        }
        guard let dump = pcap_dump_open(d, path) else {
            let reason = String(cString: pcap_geterr(d))
            pcap_close(d)
            throw PcapError("cannot create '\(path)'", reason)
        }
        dead = d
        dumper = dump
        self.path = path
    }

    deinit { close() }

    /// Appends one packet and flushes it to the file.
    public func write(_ packet: CapturedPacket) throws {
        guard let dumper else { throw PcapError("write '\(path)'", "the file is closed") }
        let seconds = packet.timestamp.rounded(.down)
        var header = pcap_pkthdr()
        header.ts.tv_sec = Int(seconds)
        header.ts.tv_usec = Int((packet.timestamp - seconds) * 1e6)
        header.caplen = UInt32(packet.data.count)
        header.len = UInt32(max(packet.originalLength, packet.data.count))
        packet.data.withUnsafeBufferPointer { buf in
            // pcap_dump's first argument is the dumper passed as u_char*, by libpcap's design.
            pcap_dump(UnsafeMutableRawPointer(dumper).assumingMemoryBound(to: UInt8.self), &header, buf.baseAddress)
        }
        packetsWritten += 1
        if flushesEachPacket { try flush() }
    }

    /// Writes what libpcap buffered to the file.
    public func flush() throws {
        guard let dumper else { return }
        guard pcap_dump_flush(dumper) == 0 else { throw PcapError("write '\(path)'", "flush failed (disk full?)") }
    }

    /// Flushes and closes the file; later writes throw.
    public func close() {
        if let dumper {
            pcap_dump_flush(dumper)
            pcap_dump_close(dumper)
            pcap_close(dead)
        }
        dumper = nil
    }
}
