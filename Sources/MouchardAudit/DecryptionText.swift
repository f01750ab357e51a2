import MouchardSniffer

/// The lines that say what TLS decryption of a capture did: how many connections were decrypted,
/// and each one that was not, with why.
public enum DecryptionText {
    static let maxListed = 20

    public static func lines(_ x: CaptureExtraction) -> [String] {
        let st = x.statistics
        guard st.tlsSessionsDecrypted + st.tlsSessionsNotDecrypted > 0 else { return [] }
        var out = ["TLS: \(st.tlsSessionsDecrypted) connections decrypted (\(st.tlsRecordsDecrypted) records), \(st.tlsSessionsNotDecrypted) not"
                   + (st.tlsRecordsFailedAuthentication + st.tlsRecordsTruncated + st.tlsRecordsMalformed > 0
                      ? "; records: \(st.tlsRecordsFailedAuthentication) failed authentication, \(st.tlsRecordsTruncated) truncated, \(st.tlsRecordsMalformed) malformed"
                      : "")]
        for u in x.undecryptedTLS.prefix(maxListed) {
            let name = u.serverName.map { " (\(printable(String($0.prefix(120)))))" } ?? ""
            out.append("not decrypted: \(u.client) → \(u.server)\(name): \(u.reason)")
        }
        if x.undecryptedTLS.count > maxListed { out.append("... and \(x.undecryptedTLS.count - maxListed) more not decrypted") }
        return out
    }

    /// Server names come from the capture: control characters are shown as `\xNN`.
    static func printable(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            if u.value < 0x20 || (0x7F...0x9F).contains(u.value) {
                out += "\\x" + (u.value < 0x10 ? "0" : "") + String(u.value, radix: 16)
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
