import Foundation
import MouchardFlow

/// The flows a test works on: loaded from a HAR file, a capture (pcap/pcapng) or a session, and
/// narrowed by host, path, method and time.
///
///     let flows = try Flows.load("Fixtures/app-1.3.har").filter(host: "appsflyer.com")
public struct Flows: Sendable, RandomAccessCollection, CustomStringConvertible {
    public let all: [Flow]

    public init(_ flows: [Flow]) { all = flows }

    /// Reads a HAR file, a capture or a session (a folder, or a name under `captures/`).
    public static func load(_ path: String) throws -> Flows {
        Flows(try FlowFile.load(path).flows)
    }

    /// Parses HAR text (as `mouchard export --format swift-test` embeds it).
    public init(harText: String) throws {
        all = try HARReader.read(Data(harText.utf8))
    }

    /// The flows that match every criterion given: `host` is the host or a parent domain
    /// (`example.com` matches `api.example.com`), `path` a prefix, `method` compared without case,
    /// the start time within `from...to`.
    public func filter(host: String? = nil, path: String? = nil, method: String? = nil,
                       from: Date? = nil, to: Date? = nil) -> Flows {
        Flows(all.filter { flow in
            if let host {
                let h = host.lowercased(), fh = flow.host
                guard fh == h || fh.hasSuffix("." + h) else { return false }
            }
            if let path, !(flow.request?.path.hasPrefix(path) ?? false) { return false }
            if let method, flow.request?.method.uppercased() != method.uppercased() { return false }
            if let from, flow.timings.started < from { return false }
            if let to, flow.timings.started > to { return false }
            return true
        })
    }

    public var startIndex: Int { all.startIndex }
    public var endIndex: Int { all.endIndex }
    public subscript(position: Int) -> Flow { all[position] }

    public var description: String {
        "\(all.count) flow\(all.count == 1 ? "" : "s")" + all.prefix(20).map { f in
            "\n  #\(f.id) \(f.request.map { "\($0.method) \(MaskedURL.display($0.url))" } ?? "TLS \(f.host)")"
        }.joined()
    }
}
