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
        let firstBytes = keyFirstBytes()
        // By index: a field is copied only when it holds a password.
        let fields = extracted.fields
        for i in fields.indices where !fields[i].isNumber && readAsSent(fields[i].origin.decodings) {
            let key = fields[i].origin.key
            // Cheap prefilter before tokenizing the key.
            guard mayBePasswordKey(key, firstBytes) else { continue }
            let tokens = keyTokens(key)
            guard tokens.contains(where: { passwordKeys.contains($0) }) || passwordKeys.contains(tokens.joined()) else { continue }
            guard !tokens.contains(where: { ["hash", "hashed", "policy", "reset", "forgot", "hint", "length", "strength", "type"].contains($0) }),
                  fields[i].bytes.count >= 3 else { continue }
            let field = fields[i]
            out.add(Detection(category: "credentials", type: "password", origin: field.origin, encoding: field.origin.encodingChain(),
                              evidence: String(decoding: field.bytes, as: UTF8.self), rule: "credentials.password",
                              confidence: 0.9, severity: "high", what: "A password"))
        }
    }

    /// Plain or percent-decoded only: what a password field looks like as typed.
    private func readAsSent(_ decodings: [String]) -> Bool {
        decodings.isEmpty || (decodings.count == 1 && decodings[0] == "url")
    }

    /// The first bytes of the password keys; nil when a key is empty (it occurs in every key).
    private func keyFirstBytes() -> ByteSet? {
        var set = ByteSet()
        for passwordKey in passwordKeys {
            guard let b = passwordKey.utf8.first else { return nil }
            set.insert(b)
        }
        return set
    }

    /// Some password key occurs in `key`, ignoring case (no lower-cased copy for ASCII keys).
    private func mayBePasswordKey(_ key: String, _ firstBytes: ByteSet?) -> Bool {
        guard let firstBytes else { return true }
        var k = key
        let folded: Bool? = k.withUTF8 { hay in
            guard !hay.contains(where: { $0 >= 0x80 }) else { return nil }
            // Only where a key's first byte stands (the keys are few and mostly share it).
            for i in hay.indices where firstBytes.contains(foldASCII(hay[i])) {
                if passwordKeys.contains(where: { asciiFoldedStarts(hay, at: i, with: $0.utf8) }) { return true }
            }
            return false
        }
        if let folded { return folded }
        let lowerKey = key.lowercased()
        return passwordKeys.contains(where: { asciiContains(lowerKey, $0) })
    }

    /// `hay` from `at` on, folded to ASCII lower case, starts with `n`.
    private func asciiFoldedStarts(_ hay: UnsafeBufferPointer<UInt8>, at start: Int, with n: String.UTF8View) -> Bool {
        guard hay.count - start >= n.count else { return false }
        var j = start
        for b in n {
            if foldASCII(hay[j]) != b { return false }
            j += 1
        }
        return true
    }
}

/// A set of bytes, as 256 bits.
private struct ByteSet {
    private var words = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))

    mutating func insert(_ b: UInt8) {
        let bit = UInt64(1) << UInt64(b & 63)
        switch b >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    func contains(_ b: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(b & 63)
        switch b >> 6 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }
}
