import Foundation

/// The forms the CA certificate is handed to a phone in (`mouchard ca export`, the onboarding page).
public enum CAExportFormat: String, Sendable, CaseIterable {
    /// PEM text: Android (Settings → Security → Install a certificate → CA certificate), desktops.
    case pem
    /// DER binary (`.cer`/`.crt`): what Android and iOS download handlers recognise.
    case der
    /// An iOS configuration profile (XML plist) with a `com.apple.security.root` payload.
    case mobileconfig

    /// The usual file name for this format.
    public var fileName: String {
        switch self {
        case .pem: return "mouchard-ca.pem"
        case .der: return "mouchard-ca.cer"
        case .mobileconfig: return "mouchard-ca.mobileconfig"
        }
    }

    /// The MIME type phones act on.
    public var contentType: String {
        switch self {
        case .pem: return "application/x-pem-file"
        case .der: return "application/x-x509-ca-cert"
        case .mobileconfig: return "application/x-apple-aspen-config"
        }
    }
}

extension CertificateAuthority {
    /// The CA certificate in `format` (never the key).
    public func export(_ format: CAExportFormat) -> [UInt8] {
        switch format {
        case .pem: return certificate.pem
        case .der: return certificate.der
        case .mobileconfig: return MobileConfigProfile.rootCertificateProfile(for: certificate)
        }
    }

    /// Android's system store wants the PEM named `<subject_hash_old>.0`; this is that name.
    public var androidSystemStoreFileName: String { certificate.subjectHashOld + ".0" }
}
