import Foundation
import MouchardAudit
import MouchardFlow
import MouchardInspection
import MouchardStore

/// `mouchard flows S`: one line per flow of a session.
struct FlowsCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "flows", abstract: "list the flows of a session",
        usage: "SESSION",
        discussion: """
        One line per flow: id, start time (UTC), method, URL, status (- when no response), request and
        response body sizes in bytes, the HTTP version (HTTP/1.1, HTTP/2 with the client's stream id);
        a flow carrying messages adds their protocol (WebSocket, gRPC, gRPC-Web, SSE) and how many each
        side sent. Flows seen only as TLS metadata show TLS and the
        server name (SNI).
        Query values and identifier-like path segments are masked as in reports (a listing is pasted
        into tickets and chats); --full-urls shows them as captured.
        """,
        options: [OptionSpec("--full-urls", help: "show URLs as captured, identifiers included"), StoreOption.readerSpec],
        minPositionals: 1, maxPositionals: 1)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        try SessionFiles.clarifying(io) { try perform(args, io) }
    }

    private static func perform(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        let name = args.positionals[0]
        let store: any SessionStoring = try StoreOption.fleet(args).map { try StoreOption.opener($0)(name) }
            ?? SessionFiles.openSession(name, io: io, create: false)
        let summaries = try store.flowSummaries()
        let idWidth = String(summaries.last?.id ?? 0).count
        var text = ""
        let fullURLs = args.flag("--full-urls")
        for s in summaries {
            text += line(s, idWidth: idWidth, fullURLs: fullURLs) + "\n"
            if text.utf8.count > 1 << 16 { io.out(text); text = "" }
        }
        io.out(text)
        return 0
    }

    /// `  12  2026-10-05T07:41:40.215Z  POST https://host/path  200  65 B → 11 B  HTTP/2 stream 3`
    static func line(_ s: FlowSummary, idWidth: Int, fullURLs: Bool = false) -> String {
        let id = String(repeating: " ", count: max(0, idWidth - String(s.id).count)) + String(s.id)
        let time = timestamp(s.started)
        var text: String
        if let method = s.method, let url = s.url {
            let status = s.status.map(String.init) ?? "-"
            let shown = fullURLs ? url : MaskedURL.display(url)
            text = "\(id)  \(time)  \(TerminalText.printable(method)) \(TerminalText.printable(shown))  \(status)  \(s.requestBodySize) B → \(s.responseBodySize) B"
            // How it travelled: `HTTP/1.1`, `HTTP/2 stream 5`.
            if let version = s.httpVersionName { text += "  \(TerminalText.printable(version))" }
            if let stream = s.streamID { text += " stream \(stream)" }
        } else {
            let name = s.serverName.flatMap { $0.isEmpty ? nil : $0 } ?? s.host
            text = "\(id)  \(time)  TLS \(TerminalText.printable(name))  (\(s.transport.rawValue), SNI only)"
        }
        if let kind = s.protocol {
            // What the exchange carried: `WebSocket 4 sent / 3 received`, `gRPC 1 sent / 1 received`.
            text += "  \(kind.displayName) \(s.clientMessages) sent / \(s.serverMessages) received"
        }
        if let e = s.error { text += "  error: \(TerminalText.printable(e))" }
        return text
    }

    static func timestamp(_ d: Date) -> String { ISO8601Time.format(d) }
}
