import MouchardFlow

/// Credentials sent where anyone on the path can read them: a password field or HTTP Basic
/// authorization in a cleartext (`http`) request.
struct CredentialDetector {
    let passwordKeys: [String]
    /// Built per request: keeps the keys only (nothing allocated per request).
    init(rules: RuleSet) {
        self.passwordKeys = rules.passwordKeys
    }

    func detect(_ request: HTTPRequest, _ extracted: FieldExtractor.Result, transport: FlowTransport, into out: inout DetectionSet) {
        guard transport == .http || request.scheme == "http" else { return }
        if let auth = request.headers["Authorization"], auth.lowercased().hasPrefix("basic "),
           let decoded = ByteCodecs.base64Decode(Array(auth.utf8.dropFirst(6))[...]), decoded.contains(0x3A) {
            out.add(Detection(category: "credentials", type: "basic-auth", origin: FieldOrigin(location: "header:Authorization", key: "Authorization"),
                              encoding: "base64", evidence: String(decoding: decoded, as: UTF8.self), rule: "credentials.basic-auth",
                              confidence: 1.0, severity: "high", what: "HTTP Basic credentials"))
        }
        for field in extracted.fields where !field.isNumber && (field.origin.decodings.isEmpty || (field.origin.decodings.count == 1 && field.origin.decodings[0] == "url")) {
            // Cheap prefilter before tokenizing the key.
            guard mayBePasswordKey(field.origin.key) else { continue }
            let tokens = keyTokens(field.origin.key)
            guard tokens.contains(where: { passwordKeys.contains($0) }) || passwordKeys.contains(tokens.joined()) else { continue }
            guard !tokens.contains(where: { ["hash", "hashed", "policy", "reset", "forgot", "hint", "length", "strength", "type"].contains($0) }),
                  field.bytes.count >= 3 else { continue }
            out.add(Detection(category: "credentials", type: "password", origin: field.origin, encoding: field.origin.encodingChain(),
                              evidence: String(decoding: field.bytes, as: UTF8.self), rule: "credentials.password",
                              confidence: 0.9, severity: "high", what: "A password"))
        }
    }

    /// Some password key occurs in `key`, ignoring case (no lower-cased copy for ASCII keys).
    private func mayBePasswordKey(_ key: String) -> Bool {
        var k = key
        let folded: Bool? = k.withUTF8 { hay in
            guard !hay.contains(where: { $0 >= 0x80 }) else { return nil }
            return passwordKeys.contains { passwordKey in
                var passwordKey = passwordKey
                return passwordKey.withUTF8 { n in asciiFoldedContains(hay, n) }
            }
        }
        if let folded { return folded }
        let lowerKey = key.lowercased()
        return passwordKeys.contains(where: { asciiContains(lowerKey, $0) })
    }

    /// `n` occurs in `hay` once `hay` is folded to ASCII lower case.
    private func asciiFoldedContains(_ hay: UnsafeBufferPointer<UInt8>, _ n: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !n.isEmpty else { return true }
        guard hay.count >= n.count else { return false }
        for i in 0...(hay.count - n.count) {
            var ok = true
            for j in 0..<n.count where foldASCII(hay[i + j]) != n[j] { ok = false; break }
            if ok { return true }
        }
        return false
    }
}
