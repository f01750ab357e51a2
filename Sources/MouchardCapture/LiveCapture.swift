import CPcap
import Glibc
import MouchardWire

/// A live capture on one network interface through libpcap: snap length 262144, promiscuous
/// mode optional, immediate delivery, an optional BPF filter installed before the first packet.
///
/// Not thread-safe: one thread calls `next`; another may call `stop` (it only sets a flag that
/// `next` sees within its poll timeout).
public final class LiveCapture {
    public static let snapLength: Int32 = 262_144

    private let handle: OpaquePointer
    private let pollTimeout: Int32
    private let selectableFD: Int32
    public let interface: String
    public let linkType: LinkType

    /// Opens and activates `interface`. Throws a `PcapError` naming the interface and libpcap's
    /// reason (no such device, permission denied...) or the filter's compile error.
    public init(interface: String, filter: String? = nil, promiscuous: Bool = false, timeoutMilliseconds: Int32 = 100) throws {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let h = pcap_create(interface, &errbuf) else {
            throw PcapError("cannot open interface '\(interface)'", String(decoding: errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        pcap_set_snaplen(h, LiveCapture.snapLength)
        pcap_set_promisc(h, promiscuous ? 1 : 0)
        pcap_set_timeout(h, timeoutMilliseconds)
        pcap_set_immediate_mode(h, 1)
        pcap_set_buffer_size(h, 8 << 20)
        let status = pcap_activate(h)
        if status < 0 {
            let detail = status == PCAP_ERROR ? String(cString: pcap_geterr(h)) : String(cString: pcap_statustostr(status))
            pcap_close(h)
            throw PcapError("cannot capture on '\(interface)'", detail)
        }
        if let filter, !filter.isEmpty {
            do { try BPFFilter.compileAndApply(filter, on: h, apply: true) } catch {
                pcap_close(h)
                throw error
            }
        }
        // Non-blocking: `next` waits with poll(2) itself, so a stop request (or a signal, which
        // interrupts poll) is seen within the timeout even when no packet arrives.
        var nbErr = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        _ = pcap_setnonblock(h, 1, &nbErr)
        handle = h
        pollTimeout = timeoutMilliseconds
        selectableFD = pcap_get_selectable_fd(h)
        self.interface = interface
        self.linkType = LinkType(rawValue: UInt32(pcap_datalink(h)))
    }

    deinit { pcap_close(handle) }

    /// The next packet, nil when the poll timeout passed with none (call again), or throws on a
    /// capture error. The packet's bytes are copied: they stay valid after the next call.
    public func next() throws -> CapturedPacket? {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let r = pcap_next_ex(handle, &header, &data)
        switch r {
        case 1:
            guard let header, let data else { return nil }
            let h = header.pointee
            let bytes = Array(UnsafeBufferPointer(start: data, count: Int(h.caplen)))
            let ts = Double(h.ts.tv_sec) + Double(h.ts.tv_usec) / 1e6
            return CapturedPacket(timestamp: ts, linkType: linkType, data: bytes[...], originalLength: Int(h.len))
        case 0:
            // Nothing buffered: wait for the descriptor (or the timeout, or a signal).
            if selectableFD >= 0 {
                var p = pollfd(fd: selectableFD, events: Int16(POLLIN), revents: 0)
                _ = poll(&p, 1, pollTimeout)
            }
            return nil
        case PCAP_ERROR_BREAK:
            return nil
        default:
            throw PcapError("capture on '\(interface)' failed", String(cString: pcap_geterr(handle)))
        }
    }

    /// Packets received and dropped so far, as libpcap counts them.
    public func statistics() -> (received: Int, dropped: Int, interfaceDropped: Int)? {
        var s = pcap_stat()
        guard pcap_stats(handle, &s) == 0 else { return nil }
        return (Int(s.ps_recv), Int(s.ps_drop), Int(s.ps_ifdrop))
    }
}
