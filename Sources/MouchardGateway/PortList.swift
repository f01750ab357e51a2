/// `--ports 80,443,8000-8100`: TCP ports to redirect, parsed and checked (pure).
public enum PortList {
    /// A range wider than this is a mistake rather than an audit setting.
    public static let maxPorts = 1024

    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// Parses a comma-separated list of ports and `low-high` ranges (1–65535, no duplicates,
    /// at most `maxPorts`); the result is sorted.
    public static func parse(_ text: String) throws(Invalid) -> [Int] {
        var ports = Set<Int>()
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: " ") }
        guard !text.trimmingCharacters(in: " ").isEmpty else { throw Invalid(description: "--ports is empty") }
        for item in items {
            guard !item.isEmpty else { throw Invalid(description: "--ports '\(text)' has an empty item") }
            let bounds = item.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count <= 2, let low = port(bounds[0]), let high = bounds.count == 2 ? port(bounds[1]) : low else {
                throw Invalid(description: "--ports: '\(item)' is not a port (1-65535) or a range LOW-HIGH")
            }
            guard low <= high else { throw Invalid(description: "--ports: range '\(item)' ends before it starts") }
            guard high - low < maxPorts, ports.count + (high - low + 1) <= maxPorts else {
                throw Invalid(description: "--ports: more than \(maxPorts) ports")
            }
            for p in low...high { ports.insert(p) }
        }
        return ports.sorted()
    }

    private static func port(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && $0.isNumber }), let v = Int(s), (1...65535).contains(v) else { return nil }
        return v
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return String(s)
    }
}
