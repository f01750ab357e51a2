import Foundation
import MouchardFlow
import MouchardInspection
import MouchardReport
import MouchardSniffer

/// The traffic of the inputs of `report` (and `scan`): flows and DNS answers from HAR files,
/// pcap/pcapng captures and session folders, or findings from a findings JSON document; with the
/// one source line the report prints about them.
struct AuditInputs {
    var flows: [Flow] = []
    var dns: [DNSObservation] = []
    /// Findings read from findings JSON documents (these inputs carry no flows).
    var readFindings: [Finding] = []
    /// One description per input: `HAR file traffic.har`, `session ios-1`...
    var sources: [String] = []
    var inputs: [String] = []
    var warnings: [String] = []

    /// `HAR file a.har; pcap file b.pcap`.
    var sourceLine: String { sources.joined(separator: "; ") }

    /// Loads every input in order (sessions the way `scan` and `flows` open them); flow ids are
    /// renumbered 1, 2, 3... across inputs.
    static func load(_ paths: [String], io: CommandIO) throws -> AuditInputs {
        var out = AuditInputs()
        for path in paths {
            let full = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: io.currentDirectory, isDirectory: true)).path
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory)
            out.inputs.append(path)
            if isDirectory.boolValue || (!exists && !path.contains("/") && !path.contains(".")) {
                let store = try SessionFiles.openSession(path, io: io, create: false)
                try SessionFiles.clarifying(io) {
                    out.append(try store.flows())
                    out.dns += try store.dnsObservations()
                }
                out.sources.append("session \((path as NSString).lastPathComponent)")
            } else if exists {
                try out.addFile(full, shown: path)
            } else {
                throw CLIError("\(path): no such file or directory")
            }
        }
        return out
    }

    private mutating func append(_ flows: [Flow]) {
        var next = (self.flows.last?.id ?? 0) + 1
        for var f in flows {
            f.id = next
            next += 1
            self.flows.append(f)
        }
    }

    private mutating func addFile(_ path: String, shown: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIError("\(shown): cannot read") }
        let header = Array(handle.readData(ofLength: 16))
        try? handle.close()
        let name = (shown as NSString).lastPathComponent
        if CaptureFileExtractor.isCaptureFile(header: header) {
            let x = try CaptureFileExtractor.extract(path: path)
            append(x.flows)
            dns += x.dns
            warnings += x.warnings.prefix(20).map { "\(shown): \($0)" }
            if let e = x.readError { warnings.append("\(shown): \(e)") }
            sources.append("\(x.format ?? "capture") file \(name)")
            return
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            append(try HARReader.read(data))
            sources.append("HAR file \(name)")
        } catch let harError {
            guard let doc = try? FindingsJSON.load(data) else {
                throw CLIError("\(shown): neither a capture, a HAR file nor a findings document (\(harError))")
            }
            readFindings += doc.findings
            sources.append("findings file \(name)")
        }
    }
}
