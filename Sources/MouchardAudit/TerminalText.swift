/// Captured text (methods, URLs, server names, errors) made safe for a terminal.
public enum TerminalText {
    /// Control characters (C0, DEL and C1) become `\xNN`; everything else is kept.
    public static func printable(_ s: String) -> String {
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
