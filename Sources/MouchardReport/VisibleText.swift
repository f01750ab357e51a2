/// Makes a captured string safe to show to a person before it is escaped for its output context:
/// control, bidi and other invisible format characters become visible tags (`⟨U+202E⟩`), and long
/// values are cut with their full length stated, so a hostile app cannot hide or reorder text in the
/// auditor's report nor blow its size up.
public enum VisibleText {
    /// Default number of characters kept from a captured value.
    public static let defaultLimit = 240

    /// `text` with invisible characters tagged and cut to `limit` characters (then `… (N chars)`).
    public static func shown(_ text: String, limit: Int = defaultLimit) -> String {
        // Fast path: short printable ASCII is shown as is.
        if text.utf8.count <= limit && text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var out = ""
        var kept = 0
        var total = 0
        var cut = false
        for scalar in text.unicodeScalars {
            total += 1
            if cut { continue }
            if kept >= limit { cut = true; continue }
            kept += 1
            if isInvisible(scalar) {
                out += tag(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        if cut { out += "… (\(total) chars)" }
        return out
    }

    /// `⟨U+XXXX⟩` naming the scalar.
    public static func tag(_ scalar: Unicode.Scalar) -> String {
        var hex = String(scalar.value, radix: 16, uppercase: true)
        while hex.count < 4 { hex = "0" + hex }
        return "⟨U+\(hex)⟩"
    }

    /// True for characters a reader cannot see or that change how the text around them is shown:
    /// C0/C1 controls (NUL, CR, LF, ESC...), DEL, bidi embeddings, overrides, isolates and marks,
    /// zero-width characters, line/paragraph separators, the BOM and non-characters.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        switch v {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x200B...0x200F: return true          // zero-width space/joiners, LRM, RLM
        case 0x2028...0x202E: return true          // line/paragraph separators, LRE, RLE, PDF, LRO, RLO
        case 0x2060...0x206F: return true          // word joiner, invisible operators, LRI, RLI, FSI, PDI, deprecated
        case 0x061C, 0x00AD, 0x034F, 0x180E: return true // arabic letter mark, soft hyphen, CGJ, MVS
        case 0xFEFF, 0xFFF9...0xFFFB: return true  // BOM, interlinear annotations
        case 0xFDD0...0xFDEF, 0xFFFE, 0xFFFF: return true
        case 0xE0000...0xE007F: return true         // tag characters
        default: return false
        }
    }
}
