import Foundation
import MouchardFindings
import MouchardFlow
import MouchardInspection
import MouchardReport
import MouchardSniffer
import MouchardStore
import MouchardWire

/// The inputs of `scan` and `report`, streamed: HAR files (parsed whole), pcap/pcapng captures (told
/// apart by their magic bytes, flows handed over as they complete), session folders or names
/// (read page by page) and findings JSON documents (`scan --format json` output, for `report`).
/// Flows are passed to a callback and never kept, so memory stays bounded whatever the inputs' size.
/// Flow ids are offset per input so that they stay unique across inputs (the first input keeps its ids).
public struct AuditInputs {
    /// Input paths as given.
    public var inputs: [String]
    /// One description per input read: `HAR file traffic.har`, `pcap file b.pcap`, `session ios-1`...
    public var sources: [String] = []
    /// Problems that did not stop the reading (damaged records...).
    public var warnings: [String] = []
    /// Captures whose reading stopped early (everything before the bad record was delivered).
    public var readErrors: [String] = []
    /// The destinations summary of the captures (hosts, transports, flows, bytes).
    public var captureDestinations: [CaptureDestination] = []
    /// TLS secrets for the captures (`--keylog`); pcapng secrets blocks are used without them.
    public var keys: TLSKeyStore?
    /// What TLS decryption did per capture (decrypted and not, with reasons), for stderr.
    public var decryptionNotes: [String] = []
    /// `--strict`: a HAR entry that cannot be read fails the input instead of being skipped with a warning.
    public var strict = false
    /// Told how far each input's reading has got (capture bytes, HAR entries, session flows).
    public var progress: ((InputProgress) -> Void)?

    /// With `--store`: opens a session of the fleet store by name or id. Every input that is not an
    /// existing file is then such a session.
    public var sessionOpener: (@Sendable (String) throws -> any SessionStoring)?

    /// Per input read, the flow ids its flows were given (after the offsetting), nil when it had none:
    /// which input a finding's flow came from.
    public var flowIDs: [ClosedRange<Int>?] = []

    /// `HAR file a.har; pcap file b.pcap`.
    public var sourceLine: String { sources.joined(separator: "; ") }

    public init(_ paths: [String]) { inputs = paths }

    /// Findings come from requests: response bodies of captures are not kept (their framing is still
    /// parsed to pair requests and responses), which saves copying most of a capture's bytes.
    public static let captureLimits = ReassemblyLimits(responseBodyBytes: 0)

    /// What the inputs deliver, in input order.
    public struct Sink {
        public var flow: (Flow) throws -> Void
        /// Findings read from a findings document (no flows behind them).
        public var findings: ([Finding]) throws -> Void
        public var dns: (DNSObservation) throws -> Void

        public init(flow: @escaping (Flow) throws -> Void, findings: @escaping ([Finding]) throws -> Void,
                    dns: @escaping (DNSObservation) throws -> Void) {
            self.flow = flow
            self.findings = findings
            self.dns = dns
        }
    }

    /// Reads every input in order (relative paths and session names resolve against
    /// `currentDirectory`), handing flows, findings and DNS answers to `sink`.
    public mutating func stream(currentDirectory: String, into sink: Sink) throws {
        var offset = 0
        for path in inputs {
            var highest = 0
            let renumbered: (Flow) throws -> Void = { flow in
                var flow = flow
                flow.id += offset
                highest = max(highest, flow.id)
                try sink.flow(flow)
            }
            switch try Self.classify(path, currentDirectory: currentDirectory, fleet: sessionOpener != nil) {
            case .file(let full):
                try streamFile(full, shown: path, flow: renumbered, sink: sink)
            case .session(let session):
                let store = try SessionOpening.open(session, currentDirectory: currentDirectory, create: false)
                try Self.streamSession(store, name: path, flow: renumbered, sink: sink, progress: progress,
                                       currentDirectory: currentDirectory)
                sources.append("session \((path as NSString).lastPathComponent)")
            case .fleetSession(let reference):
                guard let open = sessionOpener else { continue }
                try Self.streamSession(try open(reference), name: reference, flow: renumbered, sink: sink, progress: progress,
                                       currentDirectory: currentDirectory)
                sources.append("fleet session \(reference)")
            }
            flowIDs.append(highest > offset ? (offset + 1)...highest : nil)
            offset = max(offset, highest)
        }
    }

    /// A session's flows (page by page) and DNS answers; `progress` hears of every flow read.
    private static func streamSession(_ store: any SessionStoring, name: String, flow: (Flow) throws -> Void, sink: Sink,
                                      progress: ((InputProgress) -> Void)?, currentDirectory: String) throws {
        try SessionOpening.clarifying(currentDirectory: currentDirectory) {
            if let progress {
                let total = try store.flowCount()
                var done = 0
                try store.forEachFlow { f in
                    try flow(f)
                    done += 1
                    progress(InputProgress(name: name, done: done, total: total, noun: "flows"))
                }
            } else {
                try store.forEachFlow(flow)
            }
            for d in try store.dnsObservations() { try sink.dns(d) }
        }
    }

    private mutating func streamFile(_ path: String, shown: String, flow: @escaping (Flow) throws -> Void, sink: Sink) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw AuditError("\(shown): cannot read") }
        let header = Array(handle.readData(ofLength: 64))
        let size = Int((try? handle.seekToEnd()) ?? 0)
        try? handle.close()
        let name = (shown as NSString).lastPathComponent
        if let what = CaptureFileExtractor.nonCaptureDescription(header: header, fileSize: size) {
            throw AuditError("\(shown): \(what)")
        }
        if CaptureFileExtractor.isCaptureFile(header: header) {
            var failure: (any Error)?
            let x: CaptureExtraction
            do {
                let progress = self.progress.map { report in { (offset: Int) in report(InputProgress(name: shown, done: offset, total: size)) } }
                x = try CaptureFileExtractor.extract(path: path, limits: Self.captureLimits, collect: false, keys: keys,
                                                     progress: progress, onDNS: { d in
                    guard failure == nil else { return }
                    do { try sink.dns(d) } catch { failure = error }
                }, onFlow: { f in
                    guard failure == nil else { return }
                    do { try flow(f) } catch { failure = error }
                })
            } catch {
                throw AuditError("\(shown): \(error)")
            }
            if let failure { throw failure }
            captureDestinations += x.destinations
            warnings += x.warnings.filter { !$0.hasPrefix("reading stopped: ") }.map { "\(shown): \($0)" }
            decryptionNotes += DecryptionText.lines(x).map { "\(shown): \($0)" }
            if let e = x.readError { readErrors.append(Self.readErrorLine(shown, e)) }
            sources.append("\(x.format ?? "capture") file \(name)")
            return
        }
        guard CaptureFileExtractor.looksLikeJSON(header: header) else {
            throw AuditError("\(shown): neither a capture (pcap, pcapng), a HAR file nor a findings document (it does not start with JSON)")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let flows: [Flow]
        do {
            flows = try Self.readHAR(data, shown: shown, strict: strict, warnings: &warnings)
        } catch let harError {
            // A HAR whose entries are at fault (--strict, or none readable): said as such.
            if harError.path.hasPrefix("log.entries[") { throw AuditError("\(shown): \(harError)") }
            guard let doc = try? FindingsJSON.load(data) else {
                throw AuditError("\(shown): looks like a HAR/JSON file but is neither a HAR file nor a findings document (\(harError))")
            }
            try sink.findings(doc.findings)
            sources.append("findings file \(name)")
            return
        }
        sources.append("HAR file \(name)")
        for (i, f) in flows.enumerated() {
            try flow(f)
            progress?(InputProgress(name: shown, done: i + 1, total: flows.count, noun: "entries"))
        }
    }

    /// What an input names: a file to read, or a session (a folder path, or a name under `captures/`),
    /// or a session of the fleet store (its name or id).
    enum Input: Equatable {
        case file(String)
        case session(String)
        case fleetSession(String)
    }

    /// An existing file or folder path wins (a folder is a session folder); else a name without `/`
    /// naming an existing folder `captures/NAME/` is that session (names may hold dots: `app-1.2`);
    /// else an error naming both readings. With `fleet` (`--store`), whatever is not an existing
    /// file is a session of the fleet store.
    static func classify(_ path: String, currentDirectory: String, fleet: Bool = false) throws -> Input {
        let full = resolve(path, currentDirectory: currentDirectory).path
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory)
        if fleet { return exists && !isDirectory.boolValue ? .file(full) : .fleetSession(path) }
        if exists {
            return isDirectory.boolValue ? .session(full) : .file(full)
        }
        guard !path.contains("/") else { throw AuditError("\(path): no such file or directory") }
        let sessionFolder = "\(SessionStore.capturesDirectoryName)/\(path)/"
        let sessionPath = resolve(sessionFolder, currentDirectory: currentDirectory).path
        if FileManager.default.fileExists(atPath: sessionPath, isDirectory: &isDirectory), isDirectory.boolValue {
            return .session(path)
        }
        throw AuditError("no file \(path) and no session \(sessionFolder)")
    }

    /// A HAR file's flows; an entry that cannot be read is skipped with a warning naming it
    /// (`--strict`: the first one fails the file, as it does when no entry can be read).
    public static func readHAR(_ data: Data, shown: String, strict: Bool, warnings: inout [String]) throws(HARError) -> [Flow] {
        if strict { return try HARReader.read(data) }
        let (flows, skipped) = try HARReader.readSkippingBadEntries(data)
        // Not one entry readable: the file is no usable HAR, whatever its shape.
        if flows.isEmpty, let first = skipped.first(where: { !$0.notNetwork }) { throw first }
        warnings += skippedEntryLines(skipped, shown: shown)
        return flows
    }

    /// Skipped HAR entries as warning lines: one per entry up to `skippedEntriesShown`, then a count.
    public static func skippedEntryLines(_ skipped: [HARError], shown: String) -> [String] {
        var lines = skipped.prefix(skippedEntriesShown).map { "\(shown): \($0) (entry skipped)" }
        if skipped.count > skippedEntriesShown {
            lines.append("\(shown): \(skipped.count - skippedEntriesShown) more HAR entries skipped (\(skipped.count) in all)")
        }
        return lines
    }

    public static let skippedEntriesShown = 10

    /// The line `scan`, `report` and `import` all give for a capture whose reading stopped early.
    public static func readErrorLine(_ shown: String, _ error: CaptureFileError) -> String {
        "\(shown): \(error) (everything before it was read)"
    }

    /// Says on stderr which captures were cut short (the same line for `scan`, `report` and
    /// `import`); the exit status 1 when there were any, else nil.
    public func reportReadErrors(_ err: (String) -> Void) -> Int32? {
        for e in readErrors { err("mouchard: error: \(e)\n") }
        return readErrors.isEmpty ? nil : 1
    }

    static func resolve(_ path: String, currentDirectory: String) -> URL {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: currentDirectory, isDirectory: true))
    }
}
