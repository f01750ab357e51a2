import Foundation

/// Builds the unsigned iOS configuration profile that installs the CA as a root
/// (`com.apple.security.root` payload holding the DER). UUIDs are derived from the certificate's
/// SHA-256, so exporting twice yields the same profile and iOS sees an update, not a duplicate.
public enum MobileConfigProfile {
    public static func rootCertificateProfile(for certificate: Certificate) -> [UInt8] {
        let digest = certificate.sha256
        let profileUUID = uuid(from: digest, salt: 0)
        let payloadUUID = uuid(from: digest, salt: 1)
        let shortID = digest.prefix(4).map { String(format: "%02x", $0) }.joined()
        let name = certificate.commonName ?? "Mouchard CA"
        let rootPayload: [String: Any] = [
            "PayloadCertificateFileName": "mouchard-ca.cer",
            "PayloadContent": Data(certificate.der),
            "PayloadDescription": "Adds the Mouchard root certificate used to inspect this device's traffic during a privacy audit.",
            "PayloadDisplayName": name,
            "PayloadIdentifier": "org.mouchard.ca.\(shortID).root",
            "PayloadType": "com.apple.security.root",
            "PayloadUUID": payloadUUID,
            "PayloadVersion": 1,
        ]
        let profile: [String: Any] = [
            "PayloadContent": [rootPayload],
            "PayloadDescription": "Installs \(name). After installing, enable full trust in Settings → General → About → Certificate Trust Settings. Remove the profile when the audit is over.",
            "PayloadDisplayName": "Mouchard CA (privacy audit)",
            "PayloadIdentifier": "org.mouchard.ca.\(shortID)",
            "PayloadOrganization": "Mouchard",
            "PayloadRemovalDisallowed": false,
            "PayloadType": "Configuration",
            "PayloadUUID": profileUUID,
            "PayloadVersion": 1,
        ]
        guard let data = try? PropertyListSerialization.data(fromPropertyList: profile, format: .xml, options: 0) else { return [] }
        return [UInt8](data)
    }

    /// A version-4-shaped UUID string from a digest (deterministic).
    static func uuid(from digest: [UInt8], salt: UInt8) -> String {
        var bytes = Array(digest.prefix(16))
        while bytes.count < 16 { bytes.append(0) }
        bytes[15] ^= salt
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString
    }
}
