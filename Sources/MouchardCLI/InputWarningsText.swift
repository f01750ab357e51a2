/// The input warnings as the end of `scan`'s text output: every line (each is one class of
/// problem with its count, so the list stays short).
enum InputWarningsText {
    static func render(_ warnings: [String]) -> String {
        guard !warnings.isEmpty else { return "" }
        return "\nwarnings (\(warnings.count)):\n" + warnings.map { "  \($0)\n" }.joined()
    }
}
