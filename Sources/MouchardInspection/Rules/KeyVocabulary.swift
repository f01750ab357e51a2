import Synchronization

/// The key hints of every pattern rule, resolved once per distinct (key, parent key) pair and
/// remembered across requests: which rules a field so named may satisfy, the part of each rule's
/// score its names give, and what the field must be for the rule (place, shape). Apps send the
/// same few hundred keys with every request; scoring each rule's hints against each field's
/// tokens cost most of pattern mode's time.
///
/// Thread-safe and bounded: one `Mutex` held for a look-up or an insertion, never while scoring;
/// past `capacity` pairs the cache starts again empty (hostile traffic may invent keys without end).
final class KeyVocabulary: Sendable {
    /// One rule a field may satisfy, as plain data (read per field without reference counting).
    struct Candidate: Sendable {
        /// The rule's index in the detector's rules.
        var rule: Int
        /// The rule's score is `lead + path + penalty`, added in that order (as `PatternRule.score`
        /// does, so the sums are the same to the last bit): `lead` is `base` and the strongest
        /// positive hint of the key or the parent key, `penalty` the strongest negative one.
        var lead: Double
        var penalty: Double
        /// The rule has path hints: the score, and whether it reaches the threshold, wait for the
        /// URL path (without them the threshold was checked when the pair was resolved).
        var readsPath: Bool
        /// The rule's places (`FieldPlace`, 0 for all) and what a field needs for its scan.
        var places: UInt8
        var need: ShapeNeed
    }

    /// A field's key and parent key, the cache's key. Hashed as one FNV-1a over both names' bytes,
    /// fed to the hasher as one word: hashing two strings through `Hasher` was most of a look-up,
    /// made for every field (bench/NOTES.md).
    struct Names: Hashable {
        var key: String
        var parent: String

        static func == (a: Names, b: Names) -> Bool { a.key == b.key && a.parent == b.parent }

        func hash(into hasher: inout Hasher) {
            var h = Self.fnvOffset
            Self.fold(key, into: &h)
            // A byte no name holds between the two, so that ("ab", "c") and ("a", "bc") differ.
            h = (h ^ 0xFF) &* Self.fnvPrime
            Self.fold(parent, into: &h)
            hasher.combine(h)
        }

        private static let fnvOffset: UInt64 = 0xCBF2_9CE4_8422_2325
        private static let fnvPrime: UInt64 = 0x0000_0100_0000_01B3

        private static func fold(_ name: String, into h: inout UInt64) {
            let folded = name.utf8.withContiguousStorageIfAvailable { bytes in
                var x = h
                for b in bytes { x = (x ^ UInt64(b)) &* fnvPrime }
                return x
            }
            if let folded {
                h = folded
            } else {
                for b in name.utf8 { h = (h ^ UInt64(b)) &* fnvPrime }
            }
        }
    }

    static let capacity = 4096

    private let rules: [PatternRule]
    private let needs: [ShapeNeed]
    private let places: [UInt8]
    /// Per rule: the most its path hints can add (0 without any); nil for a rule never reported
    /// from fields.
    private let pathCeiling: [Double?]
    private let cache = Mutex<[Names: [Candidate]]>([:])

    /// `rules` in the detector's order with their needs and places; those of `skipped` are never
    /// candidates.
    init(_ rules: [PatternRule], needs: [ShapeNeed], places: [UInt8], skipping skipped: (PatternRule) -> Bool) {
        self.rules = rules
        self.needs = needs
        self.places = places
        pathCeiling = rules.map { rule in
            skipped(rule) ? nil : rule.pathKeys.reduce(0) { max($0, $1.weight) }
        }
    }

    /// The rules a field under `key` inside `parent` may satisfy, in rule order: those whose score,
    /// with the most upper case (and the path) can add, reaches the threshold.
    func candidates(key: String, parent: String) -> [Candidate] {
        let names = Names(key: key, parent: parent)
        if let known = cache.withLock({ $0[names] }) { return known }
        let found = resolve(KeyName(key), KeyName(parent))
        cache.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll(keepingCapacity: true) }
            cache[names] = found
        }
        return found
    }

    private func resolve(_ key: KeyName, _ parent: KeyName) -> [Candidate] {
        var out: [Candidate] = []
        for (index, rule) in rules.enumerated() {
            guard let ceiling = pathCeiling[index] else { continue }
            let (lead, penalty) = PatternRule.keyScore(keys: rule.keys, parentKeys: rule.parentKeys, base: rule.base, key: key, parent: parent)
            let readsPath = !rule.pathKeys.isEmpty
            // The detector's gate (`PatternDetector.detect`); with path hints, their most, and a
            // margin for the order of the additions (the detector checks the exact sum).
            let reaches = readsPath
                ? lead + ceiling + penalty + max(0, rule.uppercaseWeight) >= rule.threshold - Self.margin
                : lead + 0.0 + penalty + max(0, rule.uppercaseWeight) >= rule.threshold
            guard reaches else { continue }
            out.append(Candidate(rule: index, lead: lead, penalty: penalty, readsPath: readsPath, places: places[index], need: needs[index]))
        }
        return out
    }

    static let margin = 1e-9
}
