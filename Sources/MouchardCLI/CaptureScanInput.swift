import Foundation
import MouchardFlow
import MouchardInspection
import MouchardSniffer

/// `scan` on a pcap or pcapng file (recognised by its magic bytes, whatever its extension): flows
/// are streamed from the sniffer's extractor into the inspector as they complete, so memory stays
/// bounded whatever the file size; the destinations summary comes with them.
enum CaptureScanInput {
    /// True when `path` starts with a pcap or pcapng magic number.
    static func isCapture(_ path: String, io: CommandIO) -> Bool {
        let url = resolve(path, io: io)
        guard let h = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? h.close() }
        let head = (try? h.read(upToCount: 4)) ?? Data()
        return CaptureFileExtractor.isCaptureFile(header: [UInt8](head))
    }

    static func resolve(_ path: String, io: CommandIO) -> URL {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: io.currentDirectory, isDirectory: true))
    }

    /// Findings come from requests: response bodies are not kept (their framing is still parsed
    /// to pair requests and responses), which saves copying most of a capture's bytes.
    static let limits = ReassemblyLimits(responseBodyBytes: 0)

    /// Reads the capture, hands each flow to `inspect`, and returns the extraction (without flows).
    /// A bad record is reported by the caller from `readError`; what came before it is inspected.
    static func scan(_ path: String, io: CommandIO, inspect: (Flow) throws -> Void) throws -> CaptureExtraction {
        var failure: (any Error)?
        let result: CaptureExtraction
        do {
            result = try withoutActuallyEscaping(inspect) { inspect in
                try CaptureFileExtractor.extract(path: resolve(path, io: io).path, limits: limits, collect: false) { flow in
                    guard failure == nil else { return }
                    do { try inspect(flow) } catch { failure = error }
                }
            }
        } catch {
            throw CLIError("\(path): \(error)")
        }
        if let failure { throw failure }
        return result
    }

    /// The destinations summary as text, largest first.
    static func renderDestinations(_ destinations: [CaptureDestination]) -> String {
        guard !destinations.isEmpty else { return "" }
        var s = "\ndestinations (host, transports, flows, bytes, addresses):\n"
        for d in destinations {
            let quic = d.quicInitials > 0 ? ", \(d.quicInitials) QUIC Initials" : ""
            s += "  \(TextSummary.pad(d.host, 40)) \(TextSummary.pad(d.transports.joined(separator: "+"), 10)) \(d.flows) flows, \(d.bytes) bytes\(quic)  \(d.addresses.joined(separator: " "))\n"
        }
        return s
    }
}

/// The JSON document of `scan` when a capture was among the inputs: the findings document's
/// fields (same names, same order) plus the destinations summary.
struct CaptureFindingsDocument: Encodable {
    var tool: FindingsDocument.Tool
    var inputs: [String]
    var requests: Int
    var findings: [Finding]
    var destinations: [CaptureDestination]
}
