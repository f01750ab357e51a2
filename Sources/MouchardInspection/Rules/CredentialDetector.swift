import MouchardFlow

/// Credentials sent where anyone on the path can read them: a password field or HTTP Basic
/// authorization in a cleartext (`http`) request.
struct CredentialDetector {
    let passwordKeys: [String]
    init(rules: RuleSet) { self.passwordKeys = rules.passwordKeys }

    func detect(_ request: HTTPRequest, _ extracted: FieldExtractor.Result, transport: FlowTransport, into out: inout DetectionSet) {
        guard transport == .http || request.scheme == "http" else { return }
        if let auth = request.headers["Authorization"], auth.lowercased().hasPrefix("basic "),
           let decoded = ByteCodecs.base64Decode(Array(auth.utf8.dropFirst(6))[...]), decoded.contains(0x3A) {
            out.add(Detection(category: "credentials", type: "basic-auth", origin: FieldOrigin(location: "header:Authorization", key: "Authorization"),
                              encoding: "base64", evidence: String(decoding: decoded, as: UTF8.self), rule: "credentials.basic-auth",
                              confidence: 1.0, severity: "high", what: "HTTP Basic credentials"))
        }
        for field in extracted.fields where !field.isNumber && field.origin.decodings.isEmpty || field.origin.decodings == ["url"] {
            let tokens = keyTokens(field.origin.key)
            guard tokens.contains(where: { passwordKeys.contains($0) }) || passwordKeys.contains(tokens.joined()) else { continue }
            guard !tokens.contains(where: { ["hash", "hashed", "policy", "reset", "forgot", "hint", "length", "strength", "type"].contains($0) }),
                  field.bytes.count >= 3 else { continue }
            out.add(Detection(category: "credentials", type: "password", origin: field.origin, encoding: field.origin.encodingChain(),
                              evidence: String(decoding: field.bytes, as: UTF8.self), rule: "credentials.password",
                              confidence: 0.9, severity: "high", what: "A password"))
        }
    }
}
