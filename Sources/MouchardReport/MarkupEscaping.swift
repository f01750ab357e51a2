/// Escaping of text for the contexts the reports write it into. Every captured string (host, URL,
/// header, evidence...) goes through `VisibleText.shown` and then through one of these; nothing
/// captured is ever written into CSS, a script, an event handler or an `href`.
public enum MarkupEscaping {
    /// Text for HTML/SVG element content and double- or single-quoted attribute values:
    /// `& < > " '` become character references.
    public static func html(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "`": out += "&#96;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// A captured value shown in HTML: invisible characters tagged, cut to `limit`, then escaped.
    public static func htmlShown(_ text: String, limit: Int = VisibleText.defaultLimit) -> String {
        html(VisibleText.shown(text, limit: limit))
    }

    /// Text for Markdown (CommonMark / GitHub): every ASCII punctuation character that could start
    /// emphasis, code, a link or image, an autolink (`:` of a scheme, `.` of `www.`, `@` of an
    /// address), an HTML tag, an entity, math (`$`) or end a table cell is backslash-escaped.
    public static func markdown(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text.unicodeScalars {
            switch ch {
            case "\\", "`", "*", "_", "{", "}", "[", "]", "(", ")", "#", "+", ".", "!", "|", "<", ">", "&",
                 "~", ":", "$", "@":
                out += "\\"
                out.unicodeScalars.append(ch)
            default:
                out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// A captured value shown in Markdown: invisible characters tagged, cut to `limit`, then escaped.
    public static func markdownShown(_ text: String, limit: Int = VisibleText.defaultLimit) -> String {
        markdown(VisibleText.shown(text, limit: limit))
    }

    /// Unreserved and reserved characters of RFC 3986 (`%` is checked apart).
    private static func isURIByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x61...0x7A, 0x41...0x5A, 0x30...0x39: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "/"),
             UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "@"), UInt8(ascii: "!"),
             UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
             UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="): true
        default: false
        }
    }

    /// A URI reference safe for SARIF's `artifactLocation.uri` (RFC 3986): bytes outside the URI
    /// character set are percent-encoded, and a `%` not followed by two hex digits becomes `%25`.
    public static func uriReference(_ text: String) -> String {
        if text.utf8.allSatisfy(isURIByte) { return text }
        let bytes = Array(text.utf8)
        var out = ""
        var i = 0
        func isHex(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
        }
        while i < bytes.count {
            let b = bytes[i]
            if isURIByte(b) {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else if b == 0x25, i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                out += "%"
            } else {
                let hex = String(b, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
            i += 1
        }
        return out
    }
}
