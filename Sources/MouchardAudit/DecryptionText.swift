import MouchardSniffer

/// The lines that say what TLS decryption of a capture did: how many connections were decrypted,
/// and each one that was not, with why.
public enum DecryptionText {
    static let maxListed = 20

    public static func lines(_ x: CaptureExtraction) -> [String] {
        let st = x.statistics
        guard st.tlsSessionsDecrypted + st.tlsSessionsNotDecrypted + st.quicConnectionsDecrypted > 0 else { return [] }
        let skipped = st.tlsRecordsSkipped > 0 ? "; \(st.tlsRecordsSkipped) records past the body cap not decrypted" : ""
        var out = ["TLS: \(st.tlsSessionsDecrypted) connections decrypted (\(st.tlsRecordsDecrypted) records\(skipped)), \(st.tlsSessionsNotDecrypted) not"
                   + (st.tlsRecordsFailedAuthentication + st.tlsRecordsTruncated + st.tlsRecordsMalformed > 0
                      ? "; records: \(st.tlsRecordsFailedAuthentication) failed authentication, \(st.tlsRecordsTruncated) truncated, \(st.tlsRecordsMalformed) malformed"
                      : "")
                   + (st.quicConnectionsDecrypted > 0 || st.quicPacketsFailedAuthentication > 0
                      ? "; QUIC: \(st.quicConnectionsDecrypted) connections decrypted (\(st.quicPacketsDecrypted) packets, \(st.quicPacketsFailedAuthentication) failed authentication)"
                      : "")]
        for u in x.undecryptedTLS.prefix(maxListed) {
            let name = u.serverName.map { " (\(TerminalText.printable(String($0.prefix(120)))))" } ?? ""
            out.append("not decrypted: \(u.client) → \(u.server)\(name): \(u.reason)")
        }
        if x.undecryptedTLS.count > maxListed { out.append("... and \(x.undecryptedTLS.count - maxListed) more not decrypted") }
        return out
    }
}
