/// A field left out of a comparison (`--ignore-field`): a response header (`header:Date`), a JSON
/// path from the body's root (`$.meta.time`, `$.items[*].id`, `$.items[0]`), or a bare member name
/// that is ignored at any depth (`updatedAt`).
public enum IgnoredField: Sendable, Hashable, CustomStringConvertible {
    case header(String)
    /// Components after `$`: member names, array indices as decimal text, `*` for any.
    case path([String])
    case member(String)

    /// Nil for an empty name or a malformed path.
    public init?(parsing text: String) {
        if text.lowercased().hasPrefix("header:") {
            let name = String(text.dropFirst("header:".count))
            guard !name.isEmpty else { return nil }
            self = .header(name.lowercased())
            return
        }
        guard text.hasPrefix("$") else {
            guard !text.isEmpty else { return nil }
            self = .member(text)
            return
        }
        var parts: [String] = []
        var rest = Substring(text.dropFirst())
        while !rest.isEmpty {
            if rest.hasPrefix(".") {
                rest = rest.dropFirst()
                let end = rest.firstIndex(where: { $0 == "." || $0 == "[" }) ?? rest.endIndex
                guard end != rest.startIndex else { return nil }
                parts.append(String(rest[..<end]))
                rest = rest[end...]
            } else if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                var inside = rest[rest.index(after: rest.startIndex)..<close]
                if inside.hasPrefix("\""), inside.hasSuffix("\""), inside.count >= 2 { inside = inside.dropFirst().dropLast() }
                guard !inside.isEmpty else { return nil }
                parts.append(String(inside))
                rest = rest[rest.index(after: close)...]
            } else {
                return nil
            }
        }
        self = .path(parts)
    }

    /// True when the JSON member or element at `path` (from the root) is ignored.
    func matches(jsonPath path: [String]) -> Bool {
        switch self {
        case .header: return false
        case .member(let name): return path.last == name
        case .path(let pattern):
            guard pattern.count == path.count else { return false }
            return zip(pattern, path).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }

    public var description: String {
        switch self {
        case .header(let n): return "header:\(n)"
        case .member(let n): return n
        case .path(let p): return "$" + p.map { Int($0) != nil || $0 == "*" ? "[\($0)]" : ".\($0)" }.joined()
        }
    }
}
