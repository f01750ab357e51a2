import MouchardCodec

/// How a profile variant transforms its value: as is, percent-encoded, hex, base64, a digest, a
/// digest cut to its first hex digits, or a digest written in base64. `rawValue` is the name findings give it (`md5`, `sha1+base64`...).
public enum ValueTransform: Sendable, Hashable, RawRepresentable {
    case plain, url, hex, base64
    case digest(DigestAlgorithm)
    /// The first hex digits of a digest (16 or more): `sha256-truncated`.
    case truncatedDigest(DigestAlgorithm)
    case digestInBase64(DigestAlgorithm)

    public init?(rawValue: String) {
        switch rawValue {
        case "plain": self = .plain
        case "url": self = .url
        case "hex": self = .hex
        case "base64": self = .base64
        default:
            if let alg = DigestAlgorithm(rawValue: rawValue) {
                self = .digest(alg)
            } else if rawValue.hasSuffix("-truncated"), let alg = DigestAlgorithm(rawValue: String(rawValue.dropLast(10))) {
                self = .truncatedDigest(alg)
            } else if rawValue.hasSuffix("+base64"), let alg = DigestAlgorithm(rawValue: String(rawValue.dropLast(7))) {
                self = .digestInBase64(alg)
            } else {
                return nil
            }
        }
    }

    public var rawValue: String {
        switch self {
        case .plain: "plain"
        case .url: "url"
        case .hex: "hex"
        case .base64: "base64"
        case .digest(let alg): alg.rawValue
        case .truncatedDigest(let alg): alg.rawValue + "-truncated"
        case .digestInBase64(let alg): alg.rawValue + "+base64"
        }
    }
}
