/// The proxy's own answer to `http://mouchard.ca/` (never forwarded): a short page on installing
/// and trusting the CA on iOS and Android, and the CA itself in PEM, DER and mobileconfig form.
/// Pure: path in, response out; the proxy writes it as an HTTP/1.1 response.
public enum OnboardingPage {
    /// The magic host name the proxy answers itself.
    public static let host = "mouchard.ca"

    /// Whether a request's host (Host header or absolute-form authority, maybe with a port) is ours.
    public static func isOnboardingHost(_ hostHeader: String) -> Bool {
        var name = hostHeader.lowercased()
        if let colon = name.lastIndex(of: ":"), !name.hasSuffix("]") { name = String(name[..<colon]) }
        if name.hasSuffix(".") { name.removeLast() }
        return name == host
    }

    /// One response to send.
    public struct Response: Sendable, Equatable {
        public var status: Int
        public var reason: String
        public var contentType: String
        public var body: [UInt8]
        /// Extra headers (Content-Disposition for downloads, Cache-Control).
        public var headers: [(String, String)]

        /// The whole HTTP/1.1 response (head + body; no body for HEAD), ready to send.
        public func serialized(keepAlive: Bool = true, includeBody: Bool = true) -> [UInt8] {
            var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
            return Array(head.utf8) + (includeBody ? body : [])
        }

        public static func == (a: Response, b: Response) -> Bool {
            a.status == b.status && a.contentType == b.contentType && a.body == b.body
                && a.headers.map { $0.0 + ":" + $0.1 } == b.headers.map { $0.0 + ":" + $0.1 }
        }
    }

    /// The response for a request path (query string ignored): `/` → the page;
    /// `/mouchard-ca.pem|.cer|.mobileconfig` → the CA; anything else → 404.
    public static func response(for path: String, authority: CertificateAuthority) -> Response {
        let bare = String(path.prefix { $0 != "?" && $0 != "#" })
        if bare == "/" || bare.isEmpty || bare == "/index.html" {
            return Response(status: 200, reason: "OK", contentType: "text/html; charset=utf-8",
                            body: Array(html(authority: authority).utf8), headers: [("Cache-Control", "no-store")])
        }
        for format in CAExportFormat.allCases where bare == "/" + format.fileName || (format == .der && bare == "/mouchard-ca.der") {
            return Response(status: 200, reason: "OK", contentType: format.contentType, body: authority.export(format),
                            headers: [("Content-Disposition", "attachment; filename=\"\(format.fileName)\""),
                                      ("Cache-Control", "no-store")])
        }
        return Response(status: 404, reason: "Not Found", contentType: "text/plain; charset=utf-8",
                        body: Array("Not found. See http://\(host)/\n".utf8), headers: [])
    }

    /// The onboarding page.
    public static func html(authority: CertificateAuthority) -> String {
        let certificate = authority.certificate
        let subject = escape(certificate.subject)
        let fingerprint = escape(certificate.sha256Fingerprint)
        let hashName = escape(authority.androidSystemStoreFileName)
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Mouchard CA</title>
        <style>body{font-family:system-ui,sans-serif;max-width:42em;margin:1em auto;padding:0 1em;line-height:1.45}
        code{word-break:break-all}a.button{display:inline-block;margin:.2em .4em .2em 0;padding:.4em .8em;border:1px solid #333;border-radius:.3em;text-decoration:none}</style>
        </head><body>
        <h1>Mouchard CA</h1>
        <p>This device's traffic goes through Mouchard, a privacy auditor. To let it read HTTPS traffic,
        install and trust its certificate authority. <strong>Use a test device only</strong>, and remove the
        certificate when the audit is over.</p>
        <p>Subject: <code>\(subject)</code><br>SHA-256: <code>\(fingerprint)</code></p>
        <p><a class="button" href="/\(CAExportFormat.mobileconfig.fileName)">iOS profile (.mobileconfig)</a>
        <a class="button" href="/\(CAExportFormat.der.fileName)">Certificate (DER .cer)</a>
        <a class="button" href="/\(CAExportFormat.pem.fileName)">Certificate (PEM)</a></p>
        <h2>iOS / iPadOS</h2>
        <ol>
        <li>Open this page in Safari and tap <em>iOS profile</em>; allow the download.</li>
        <li>Settings → General → VPN &amp; Device Management → <em>Mouchard CA</em> → Install.</li>
        <li>Settings → General → About → Certificate Trust Settings → turn on full trust for the Mouchard CA.
        Without this step, HTTPS apps reject Mouchard's certificates.</li>
        </ol>
        <h2>Android</h2>
        <ol>
        <li>Download the <em>DER</em> certificate, then Settings → Security (or Security &amp; privacy →
        More security settings) → Encryption &amp; credentials → Install a certificate → CA certificate.</li>
        <li>This puts it in the <strong>user</strong> store. Since Android 7, apps ignore user CAs unless their
        <code>network_security_config</code> allows them (debug builds often do); browsers and such apps
        will work, most others will fail their TLS handshake (Mouchard records them as rejected).</li>
        <li>To audit any app, the CA must be in the <strong>system</strong> store, which needs a rooted device
        (e.g. a Magisk module) or an emulator image without Google Play: copy the PEM as
        <code>/system/etc/security/cacerts/\(hashName)</code> (Android 14+: the <code>com.android.conscrypt</code>
        APEX store) with mode 644.</li>
        </ol>
        <p>Apps that pin their certificates refuse any CA you install; Mouchard lists them as
        “client rejected certificate (pinning?)” with the host name they asked for.</p>
        </body></html>

        """
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
