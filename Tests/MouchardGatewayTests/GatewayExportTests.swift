import Foundation
import MouchardStore
import MouchardTestSupport
import Testing

/// `export --pcapng` of a gateway session: its `traffic.pcap` (the phone side, where the phone's
/// TLS ends at the gateway) and the secrets the gateway wrote with `--ssl-keylog` into the
/// session's `keys.log` become one file in which tshark, with no option, shows every request,
/// HTTPS included, decrypted.
extension GatewayNamespaceTests {
    static var exportReady: Bool { ready && TestTool.tshark.isPresent }

    @Test(.enabled(if: GatewayNamespaceTests.exportReady,
                   "needs root, ip, nft, curl, python3, openssl, tshark and a built mouchard (swift build)"),
          .timeLimit(.minutes(3)))
    func gatewaySessionExportsDecryptedForWireshark() throws {
        let lab = try NamespaceLab()
        defer { lab.destroy() }
        let files = try Files(host: lab.host)
        defer { try? FileManager.default.removeItem(atPath: files.dir) }
        #expect(try startInternetServices(lab, files))

        let session = files.dir + "/gateway-session"
        try FileManager.default.createDirectory(atPath: session, withIntermediateDirectories: true)
        let keyLog = session + "/" + SessionStore.keyLogFileName
        let gw = try startGateway(lab, files, session: session, extra: ["--ssl-keylog", keyLog])
        let replies = try plantedRequests(lab, files, proxy: nil)
        #expect(replies.allSatisfy { $0.hasPrefix("ok /") || $0.hasPrefix("got {") }, "\(replies)\n\(gw.stderr.text)")
        Thread.sleep(forTimeInterval: 0.5)
        kill(gw.process.processIdentifier, SIGTERM)
        #expect(waitForExit(gw.process, seconds: 60), "the gateway did not stop on SIGTERM")

        let recorded = try SessionStore(directory: session, create: false).flows().compactMap { f -> String? in
            guard let r = f.request else { return nil }
            return "\(f.transport.rawValue) \(r.method) \(r.pathAndQuery)"
        }
        #expect(recorded.filter { $0.hasPrefix("https ") }.count == 3, "\(recorded)")
        #expect(recorded.filter { $0.hasPrefix("http ") }.count == 3, "\(recorded)")

        let exported = files.dir + "/gateway.pcapng"
        let export = try lab.run(lab.gateway, [Self.mouchard, "export", session, "--pcapng", exported], timeout: 60)
        #expect(export.status == 0 && export.output.contains("packets of traffic.pcap"), "\(export.output)")
        // The phone's curl offers h2, which the gateway gives it even from an HTTP/1.1 origin: the
        // requests are HTTP/1.1 or HTTP/2 ones.
        let tshark = try lab.run(lab.gateway, [try #require(TestTool.tshark.path), "-r", exported, "-Y", "http.request || http2.headers.method",
                                               "-T", "fields", "-E", "occurrence=f", "-e", "http.request.method", "-e", "http.request.uri",
                                               "-e", "http2.headers.method", "-e", "http2.headers.path", "-e", "tls.record.content_type"],
                                 timeout: 120)
        // tshark adds a warning line on stderr when run as root: keep the requests.
        let lines = tshark.output.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
            .filter { $0.count == 5 && ["GET", "POST"].contains($0[0].isEmpty ? $0[2] : $0[0]) }
        let requests = lines.map { $0[0].isEmpty ? "\($0[2]) \($0[3])" : "\($0[0]) \($0[1])" }
        let expected = recorded.map { String($0.split(separator: " ", maxSplits: 1)[1]) }
        #expect(requests.sorted() == expected.sorted(), "tshark: \(tshark.output)\nsession: \(recorded)")
        // Three of them came out of TLS (application data records, type 23).
        let fromTLS = lines.filter { $0[4].split(separator: ",").contains("23") }
        #expect(fromTLS.count == 3, "\(lines)")
    }
}
