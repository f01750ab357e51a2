import Synchronization

/// The key hints of every pattern rule, resolved once per distinct (key, parent key) pair and
/// remembered across requests: which rules a field so named may satisfy, and the part of each
/// rule's score its names give. Apps send the same few hundred keys with every request; scoring
/// each rule's hints against each field's tokens cost most of pattern mode's time.
///
/// Thread-safe and bounded: one `Mutex` held for a look-up or an insertion, never while scoring;
/// past `capacity` pairs the cache starts again empty (hostile traffic may invent keys without end).
final class KeyVocabulary: Sendable {
    /// One rule a field may satisfy, by its index in the detector's rules, with its score split
    /// where the URL path's hints go: the score is `lead + path + penalty`, in that order (the
    /// order `PatternRule.score` adds them, so the sums are the same to the last bit).
    struct RuleScore: Sendable {
        var rule: Int
        /// `base` and the strongest positive hint of the key or of the parent key.
        var lead: Double
        /// The strongest negative hint of either (0 or less).
        var penalty: Double
    }

    struct Names: Hashable {
        var key: String
        var parent: String
    }

    static let capacity = 4096

    private let rules: [PatternRule]
    /// Per rule: the most its path hints can add (0 without any).
    private let pathCeiling: [Double]
    private let cache = Mutex<[Names: [RuleScore]]>([:])

    /// `rules` in the detector's order; those of `skipped` are never in an answer.
    init(_ rules: [PatternRule], skipping skipped: (PatternRule) -> Bool) {
        self.rules = rules
        pathCeiling = rules.map { rule in
            skipped(rule) ? -.infinity : rule.pathKeys.reduce(0) { max($0, $1.weight) }
        }
    }

    /// The rules a field under `key` inside `parent` may satisfy, in rule order: those whose score,
    /// with the most the path and upper case can add, reaches the threshold.
    func rules(key: String, parent: String) -> [RuleScore] {
        let names = Names(key: key, parent: parent)
        if let known = cache.withLock({ $0[names] }) { return known }
        let found = resolve(KeyName(key), KeyName(parent))
        cache.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll(keepingCapacity: true) }
            cache[names] = found
        }
        return found
    }

    private func resolve(_ key: KeyName, _ parent: KeyName) -> [RuleScore] {
        var out: [RuleScore] = []
        for (index, rule) in rules.enumerated() where pathCeiling[index] > -.infinity {
            let (lead, penalty) = PatternRule.keyScore(keys: rule.keys, parentKeys: rule.parentKeys, base: rule.base, key: key, parent: parent)
            // A margin for the order of the additions: the detector checks the exact sum.
            let best = lead + pathCeiling[index] + penalty + max(0, rule.uppercaseWeight)
            if best >= rule.threshold - Self.margin { out.append(RuleScore(rule: index, lead: lead, penalty: penalty)) }
        }
        return out
    }

    static let margin = 1e-9
}
