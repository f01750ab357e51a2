import Foundation
import MouchardFlow
import MouchardInspection
import MouchardProxy
import MouchardWire

/// A recorded flow as code: a curl command that sends the request again, or a Swift Testing test
/// that loads the flow and pins its current findings (a starting point for a regression test).
public enum FlowCode {
    /// `text` quoted for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A curl command line: method, URL, headers in order (hop-by-hop, `Content-Length` and a
    /// `Host` equal to the URL's left out: curl writes them), the body with `--data-binary`. A body
    /// that is not printable text is piped in with `printf`.
    public static func curl(_ flow: Flow) -> String? {
        guard let r = flow.request, r.method != "CONNECT" else { return nil }
        var lines = ["curl --http1.1" + (r.method == "GET" && r.body.isEmpty ? "" : " -X \(shellQuoted(r.method))")
                     + " \(shellQuoted(r.url))"]
        let listed = Set(HopByHopHeaders.connectionTokens(r.headers))
        for f in r.headers.fields {
            let lower = f.name.lowercased()
            if lower.hasPrefix(":") || lower == "content-length" || listed.contains(lower)
                || HopByHopHeaders.fixed.contains(where: { asciiCaseInsensitiveEquals($0, f.name) }) { continue }
            if lower == "host", f.value.lowercased() == URLParts.droppingDefaultPort(authority: r.authority, scheme: r.scheme) { continue }
            lines.append("-H \(shellQuoted("\(f.name): \(f.value)"))")
        }
        var prefix = ""
        if !r.body.isEmpty {
            if let text = String(validating: r.body, as: UTF8.self),
               !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" }) {
                lines.append("--data-binary \(shellQuoted(text))")
            } else {
                prefix = "printf '" + r.body.map { String(format: "\\%03o", $0) }.joined() + "' | "
                lines.append("--data-binary @-")
            }
        }
        if r.bodyTruncated { lines.append("# the recorded body was cut at capture: this sends its first \(r.body.count) bytes") }
        return prefix + lines.joined(separator: " \\\n  ") + "\n"
    }

    /// A Swift Testing test for MouchardKit: the flow embedded as HAR, audited (with the device
    /// profile embedded when given), its findings' signatures pinned.
    public static func swiftTest(_ flow: Flow, source: String, signatures: [String], profileJSON: String?,
                                 toolVersion: String) -> String {
        let har = String(decoding: HARWriter(creatorVersion: toolVersion).document([flow]), as: UTF8.self)
        let what = flow.request.map { "\($0.method) \(MaskedURL.display($0.url))" } ?? "TLS \(flow.host)"
        var s = """
        import Testing
        import MouchardKit

        /// Flow \(flow.id) of \(comment(source)): \(comment(what))
        /// (exported by mouchard \(toolVersion)). It pins the findings the flow had then: edit the
        /// expectation to say what must hold (`#expect(audit.findings(.deviceID, to: .thirdParty).isEmpty)`).
        @Test func flow\(flow.id)KeepsItsFindings() throws {
            let flows = try Flows(harText: \(rawLiteral(har)))

        """
        if let profileJSON {
            s += "    let profile = try Rules.profile(json: \(rawLiteral(profileJSON)))\n"
            s += "    let audit = try Audit(flows, profile: profile)\n"
        } else {
            s += "    let audit = try Audit(flows)\n"
        }
        if signatures.isEmpty {
            s += "    #expect(audit.findings.isEmpty)\n"
        } else {
            s += "    #expect(audit.findings.signatures == [\n"
            for sig in signatures { s += "        \(stringLiteral(sig)),\n" }
            s += "    ])\n"
        }
        return s + "}\n"
    }

    /// One line for a `///` comment.
    static func comment(_ s: String) -> String {
        String(s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
    }

    /// A Swift string literal of `s` (escaped).
    static func stringLiteral(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where u.value < 0x20 || u.value == 0x7F: out += "\\u{\(String(u.value, radix: 16))}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// A multi-line raw string literal holding `s` verbatim, with enough `#` that `s` cannot close it.
    static func rawLiteral(_ s: String) -> String {
        var hashes = "#"
        while s.contains("\"\"\"" + hashes) || s.contains("\"" + hashes) { hashes += "#" }
        let indented = s.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "        " + $0 }
            .joined(separator: "\n")
        return "\(hashes)\"\"\"\n\(indented)\n        \"\"\"\(hashes)"
    }
}
