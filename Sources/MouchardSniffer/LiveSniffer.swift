import MouchardCapture
import MouchardFlow
import MouchardWire
import Synchronization

/// Live capture on an interface turned into flows as they happen: every packet is written (and
/// flushed) to the session's pcap when one is given, then fed to a `PcapFlowExtractor`.
///
/// `run` blocks the calling thread until `stop()` is called (from a signal handler's flag, another
/// thread, or a test), then ends every connection and returns what was seen. Memory stays bounded:
/// flows are not kept, only handed to `onFlow`.
public final class LiveSniffer {
    private let capture: LiveCapture
    private let writer: PcapFileWriter?
    private let extractor: PcapFlowExtractor
    private let stopFlag = StopFlag()

    /// Called with each flow as it completes, and each DNS answer.
    public var onFlow: ((Flow) -> Void)? {
        get { extractor.onFlow }
        set { extractor.onFlow = newValue }
    }
    public var onDNS: ((DNSObservation) -> Void)? {
        get { extractor.onDNS }
        set { extractor.onDNS = newValue }
    }

    public var interface: String { capture.interface }
    public var linkType: LinkType { capture.linkType }
    public var packetsWritten: Int { writer?.packetsWritten ?? 0 }
    /// Packets and their captured bytes so far (read on the thread that calls `run`, e.g. from `shouldStop`).
    public private(set) var packetsSeen = 0
    public private(set) var bytesSeen = 0

    /// Opens `interface` (validating `filter` first) and, when `pcapPath` is set, creates that file.
    /// `keyLog`: a key log file followed while capturing (read again every `keyLogPollInterval`).
    public init(interface: String, filter: String? = nil, promiscuous: Bool = false, pcapPath: String? = nil,
                limits: ReassemblyLimits = ReassemblyLimits(), keyLog: String? = nil) throws {
        if let filter, !filter.isEmpty { try BPFFilter.validate(filter) }
        let live = try LiveCapture(interface: interface, filter: filter, promiscuous: promiscuous)
        capture = live
        writer = try pcapPath.map { try PcapFileWriter(path: $0, linkType: live.linkType) }
        if let keyLog {
            let keys = TLSKeyStore()
            extractor = PcapFlowExtractor(limits: limits, collect: false, keys: keys)
            follower = KeyLogFollower(path: keyLog, keys: keys)
        } else {
            extractor = PcapFlowExtractor(limits: limits, collect: false)
            follower = nil
        }
    }

    private let follower: KeyLogFollower?
    /// Seconds between two reads of the followed key log.
    static let keyLogPollInterval = 0.25

    /// Asks `run` to return (safe from any thread; seen within the capture's 100 ms poll).
    public func stop() { stopFlag.set() }

    /// Captures until `stop()` or `shouldStop()` says so; returns the extraction (flows were given to
    /// `onFlow`), with libpcap's drop counters in `warnings` when packets were dropped.
    public func run(shouldStop: () -> Bool = { false }) throws -> CaptureExtraction {
        defer { writer?.close() }
        follower?.poll()
        var lastPoll = ContinuousClock.now
        while !stopFlag.isSet && !shouldStop() {
            if let f = follower, ContinuousClock.now - lastPoll > .milliseconds(Int(LiveSniffer.keyLogPollInterval * 1000)) {
                f.poll()
                lastPoll = ContinuousClock.now
            }
            guard let packet = try capture.next() else { continue }
            packetsSeen += 1
            bytesSeen += packet.data.count
            try writer?.write(packet)
            extractor.process(packet)
        }
        writer?.close()
        follower?.poll()
        var result = extractor.finish()
        if let s = capture.statistics(), s.dropped > 0 || s.interfaceDropped > 0 {
            result.warnings.append("libpcap dropped \(s.dropped) packets (interface dropped \(s.interfaceDropped)) of \(s.received) received")
        }
        return result
    }
}

/// A flag one thread sets and another reads.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
