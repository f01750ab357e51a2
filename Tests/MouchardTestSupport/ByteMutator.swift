/// Deterministic, seeded damage to byte strings: the "fuzz-style" mutations the hostile-input tests
/// apply to valid messages, files and streams.
///
/// Pure and reproducible: a mutator made with the same seed applies the same mutations to the same
/// input, so a test failure message that prints the seed and the input size is enough to replay it.
/// Mutations: bit flips, byte overwrites (random or "interesting" bytes such as CR, LF, `:`, NUL),
/// insertions and deletions, truncation, duplication of a range, splicing with another sample, and
/// insertion of hostile tokens (huge numbers, deep nesting openers, long runs).
public struct ByteMutator: Sendable {
    /// One kind of damage.
    public enum Mutation: Sendable, Hashable, CaseIterable {
        case flipBit
        case overwriteRandom
        case overwriteInteresting
        case insertInteresting
        case delete
        case truncate
        case duplicateRange
        case splice
        case insertToken
    }

    /// The seed this mutator started from (for failure messages).
    public let seed: UInt64
    public var generator: SplitMix64

    public init(seed: UInt64) {
        self.seed = seed
        generator = SplitMix64(seed: seed)
    }

    /// Bytes that delimit or end things in text protocols and formats.
    public static let interestingBytes: [UInt8] = [
        0x00, 0x09, 0x0A, 0x0D, 0x20, 0x22, 0x2C, 0x2D, 0x30, 0x3A, 0x3B, 0x5B, 0x5C, 0x5D, 0x7B, 0x7D, 0x7F, 0x80, 0xC3, 0xFF,
    ]

    /// Short byte strings that break parsers that trust their input: huge and negative numbers,
    /// line ends, nesting openers, escapes, invalid UTF-8.
    public static let hostileTokens: [[UInt8]] = [
        "99999999999999999999999", "18446744073709551616", "9223372036854775807", "-1", "ffffffffffffffff0",
        "1e999", "\r\n", "\n", "\r\n\r\n", "[[[[[[[[", "{{{{", "\"", "\\u", "\\uD800", ",", ":", "0x",
        "Content-Length: 99999999999999999999\r\n", "Transfer-Encoding: chunked\r\n", "\u{0}",
    ].map { Array($0.utf8) } + [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xFE, 0xFF]]

    /// A number in `0..<bound` (0 when `bound` is 0 or less).
    public mutating func below(_ bound: Int) -> Int { generator.below(bound) }

    /// `input` with between 1 and `maxMutations` random mutations applied; `donors` are other
    /// samples that `splice` may take a piece from.
    public mutating func mutate(_ input: [UInt8], maxMutations: Int = 4, donors: [[UInt8]] = []) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + below(max(1, maxMutations))) {
            let kinds = Mutation.allCases
            apply(kinds[below(kinds.count)], to: &bytes, donors: donors)
        }
        return bytes
    }

    /// Applies one mutation of kind `mutation` to `bytes`.
    public mutating func apply(_ mutation: Mutation, to bytes: inout [UInt8], donors: [[UInt8]] = []) {
        let n = bytes.count
        let at = below(n + 1)  // an insertion point; a byte index when < n
        switch mutation {
        case .flipBit:
            guard at < n else { return }
            bytes[at] ^= 1 << UInt8(below(8))
        case .overwriteRandom:
            guard at < n else { return }
            bytes[at] = UInt8(truncatingIfNeeded: generator.next())
        case .overwriteInteresting:
            guard at < n else { return }
            bytes[at] = Self.interestingBytes[below(Self.interestingBytes.count)]
        case .insertInteresting:
            bytes.insert(Self.interestingBytes[below(Self.interestingBytes.count)], at: at)
        case .delete:
            guard at < n else { return }
            bytes.removeSubrange(at..<min(n, at + 1 + below(8)))
        case .truncate:
            bytes.removeSubrange(at..<n)
        case .duplicateRange:
            guard at < n else { return }
            let end = min(n, at + 1 + below(64))
            bytes.insert(contentsOf: bytes[at..<end], at: below(n + 1))
        case .splice:
            guard !donors.isEmpty else { return apply(.duplicateRange, to: &bytes) }
            let donor = donors[below(donors.count)]
            let from = below(donor.count + 1)
            let piece = donor[from..<min(donor.count, from + below(256))]
            bytes.replaceSubrange(at..<min(n, at + below(256)), with: piece)
        case .insertToken:
            bytes.insert(contentsOf: Self.hostileTokens[below(Self.hostileTokens.count)], at: at)
        }
    }

    /// How many iterations a hostile-input test should run: `MOUCHARD_FUZZ_ITERATIONS` from
    /// `environment` when it is a positive number (long local runs), else `default` (kept small for CI).
    public static func iterations(default count: Int, environment: [String: String]) -> Int {
        guard let text = environment["MOUCHARD_FUZZ_ITERATIONS"], let n = Int(text), n > 0 else { return count }
        return n
    }
}
