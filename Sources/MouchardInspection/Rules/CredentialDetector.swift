import MouchardFindings
import MouchardFlow

/// Credentials sent where anyone on the path can read them: a password field or HTTP Basic
/// authorization in a cleartext (`http`) request.
struct CredentialDetector {
    let passwordKeys: [String]
    /// `passwordKeys` read once (the inspector's), for the keys of fields.
    let keySearch: FoldedKeySearch
    /// Built per request: keeps the keys only (nothing allocated per request).
    init(rules: RuleSet, keySearch: FoldedKeySearch? = nil) {
        self.passwordKeys = rules.passwordKeys
        self.keySearch = keySearch ?? FoldedKeySearch(rules.passwordKeys)
    }

    /// The request went in cleartext: the only ones looked at (a caller may skip making the detector
    /// for the others), and the ones whose key names the span scan reads (`Inspector.scanStage`).
    static func applies(to request: HTTPRequest, transport: FlowTransport) -> Bool {
        transport == .http || request.scheme == "http"
    }

    func detect(_ request: HTTPRequest, _ extracted: FieldExtractor.Result, transport: FlowTransport, into out: inout DetectionSet) {
        guard Self.applies(to: request, transport: transport) else { return }
        if let auth = request.headers["Authorization"], auth.lowercased().hasPrefix("basic "),
           let decoded = ByteCodecs.base64Decode(Array(auth.utf8.dropFirst(6))[...]), decoded.contains(0x3A) {
            out.add(Detection(category: .credentials, type: "basic-auth", origin: FieldOrigin(location: "header:Authorization", key: "Authorization"),
                              encoding: "base64", evidence: String(decoding: decoded, as: UTF8.self), rule: "credentials.basic-auth",
                              confidence: 1.0, severity: .high, what: "HTTP Basic credentials"))
        }
        // By index: a field is copied only when it holds a password.
        let fields = extracted.fields
        for i in fields.indices where !fields[i].isNumber && readAsSent(fields[i].origin.decodings) {
            let key = fields[i].origin.key
            // Cheap prefilter before tokenizing the key.
            guard mayBePasswordKey(key) else { continue }
            let tokens = keyTokens(key)
            guard tokens.contains(where: { passwordKeys.contains($0) }) || passwordKeys.contains(tokens.joined()) else { continue }
            guard !tokens.contains(where: { ["hash", "hashed", "policy", "reset", "forgot", "hint", "length", "strength", "type"].contains($0) }),
                  fields[i].bytes.count >= 3 else { continue }
            let field = fields[i]
            out.add(Detection(category: .credentials, type: "password", origin: field.origin, encoding: field.origin.encodingChain(),
                              evidence: String(decoding: field.bytes, as: UTF8.self), rule: "credentials.password",
                              confidence: 0.9, severity: .high, what: "A password"))
        }
    }

    /// Plain or percent-decoded only: what a password field looks like as typed.
    private func readAsSent(_ decodings: [String]) -> Bool {
        decodings.isEmpty || (decodings.count == 1 && decodings[0] == "url")
    }

    /// Some password key occurs in `key`, ignoring case (no lower-cased copy for ASCII keys).
    private func mayBePasswordKey(_ key: String) -> Bool {
        var k = key
        let folded: Bool? = k.withUTF8 { hay in
            hay.contains(where: { $0 >= 0x80 }) ? nil : keySearch.isFound(in: hay)
        }
        if let folded { return folded }
        let lowerKey = key.lowercased()
        return passwordKeys.contains(where: { asciiContains(lowerKey, $0) })
    }
}
