/// Decides whether a destination host is the app's own back end (first party) or someone else (third
/// party), and says why, so a finding can tell "sent to the app's own server" from "sent to AppsFlyer".
///
/// Two modes:
///
/// 1. **Explicit** — the auditor names the app's domains (`--first-party DOMAIN`, repeatable). A host is
///    first party exactly when it is one of those domains or a subdomain of one (on label boundaries:
///    `--first-party lumotorch.example` covers `api.lumotorch.example`, not `notlumotorch.example`).
///    Nothing is guessed. This is the mode to use when the app's company also runs a tracker.
///
/// 2. **Inferred** — no domain given. The capture itself says which hosts are the app's:
///    - a tracker of the directory is never first party (an app does not own AppsFlyer); infrastructure
///      entries (CDN, cloud hosting) do not count as trackers: the app's CloudFront distribution is its own;
///    - platform domains (Apple, Google system services: the directory's `platform` entries and a few
///      built in) are never inferred as first party either;
///    - TLS server names (SNI) of connections without a readable request count like requests;
///    - the other hosts are grouped by registrable domain (`RegistrableDomain`), each group weighed by its
///      number of requests; the group with the most requests is first party, when it is strictly ahead of
///      the next one (a tie proves nothing, so no group wins by count);
///    - any registrable domain whose name label matches an app hint is first party too. Hints are the
///      distinctive words of the app's bundle identifier (`com.lumo.torch` → `lumo`, `torch`,
///      `lumotorch`) and of the product tokens of its User-Agent (`LumoTorch/2.1 CFNetwork/1494`
///      → `lumotorch`, `lumo`, `torch`); generic words (`com`, `app`, `ios`, `cfnetwork`, `okhttp`...) and
///      words shorter than 4 letters are dropped. A name label matches when it equals a hint, equals it
///      once its hyphens are removed (`lumo-torch`), or has a hyphen-separated part equal to a hint of at
///      least 5 letters (`torch-api`), so short common words do not pull in strangers.
///    - everything else is third party.
///
/// Every decision carries its reason (`PartyDecision.reason`) for reports that explain themselves.
public struct FirstPartyPolicy: Sendable {
    /// The auditor's domains (normalized); non-empty means explicit mode.
    public let explicitDomains: [String]
    /// Registrable domains inferred as the app's, with the reason for each (empty in explicit mode).
    public let inferredDomains: [String: PartyReason]
    private let trackers: TrackerDirectory?
    private let hints: Set<String>

    /// Explicit mode: exactly these domains and their subdomains are first party. Invalid names are ignored.
    public init(explicitDomains: [String], trackers: TrackerDirectory? = nil) {
        self.init(explicit: explicitDomains.compactMap(HostName.normalized), inferred: [:], hints: [], trackers: trackers)
    }

    private init(explicit: [String], inferred: [String: PartyReason], hints: Set<String>, trackers: TrackerDirectory?) {
        self.explicitDomains = explicit
        self.inferredDomains = inferred
        self.hints = hints
        self.trackers = trackers
    }

    /// The policy for a capture: explicit when `explicitDomains` is non-empty, else inferred from the
    /// capture's hosts (`requestsPerHost`: host → number of requests to it) and the app hints (bundle ids,
    /// User-Agent strings; see `hintWords(from:)`).
    public init(explicitDomains: [String], requestsPerHost: [String: Int], appHints: [String],
                trackers: TrackerDirectory?) {
        let explicit = explicitDomains.compactMap(HostName.normalized)
        guard explicit.isEmpty else {
            self.init(explicitDomains: explicit, trackers: trackers)
            return
        }
        let hints = Set(appHints.flatMap(Self.hintWords(from:)))

        var weights: [String: Int] = [:]
        for (host, count) in requestsPerHost {
            guard let name = HostName.normalized(host), !Self.isTrackerOrPlatform(trackers?.lookup(host: name)),
                  let domain = RegistrableDomain.of(name), !Self.isPlatformDomain(domain) else { continue }
            weights[domain, default: 0] += max(0, count)
        }
        var inferred: [String: PartyReason] = [:]
        let ranked = weights.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        if let top = ranked.first, top.value > 0, ranked.count == 1 || top.value > ranked[1].value {
            inferred[top.key] = .mostRequested(domain: top.key, requests: top.value)
        }
        for domain in weights.keys.sorted() where inferred[domain] == nil {
            if let hint = Self.matchingHint(domain: domain, hints: hints) {
                inferred[domain] = .appHint(domain: domain, hint: hint)
            }
        }
        self.init(explicit: [], inferred: inferred, hints: hints, trackers: trackers)
    }

    /// First or third party for one host, with the reason.
    public func decide(host: String) -> PartyDecision {
        guard let name = HostName.normalized(host) else {
            return PartyDecision(isFirstParty: false, reason: .unrelated)
        }
        if !explicitDomains.isEmpty {
            if let domain = explicitDomains.first(where: { HostName.name(name, isWithin: $0) }) {
                return PartyDecision(isFirstParty: true, reason: .explicitDomain(domain))
            }
            return PartyDecision(isFirstParty: false, reason: .notExplicit)
        }
        let entry = trackers?.lookup(host: name)
        if let entry, entry.isTracker {
            return PartyDecision(isFirstParty: false, reason: .tracker(company: entry.brandAndCompany, domain: entry.domain))
        }
        if let entry, entry.category == .platform {
            return PartyDecision(isFirstParty: false, reason: .platform(domain: entry.domain))
        }
        guard let domain = RegistrableDomain.of(name) else {
            return PartyDecision(isFirstParty: false, reason: .unrelated)
        }
        if let reason = inferredDomains[domain] { return PartyDecision(isFirstParty: true, reason: reason) }
        if Self.isPlatformDomain(domain) { return PartyDecision(isFirstParty: false, reason: .platform(domain: domain)) }
        if let hint = Self.matchingHint(domain: domain, hints: hints) {
            return PartyDecision(isFirstParty: true, reason: .appHint(domain: domain, hint: hint))
        }
        return PartyDecision(isFirstParty: false, reason: .unrelated)
    }

    /// `!decide(host:).isFirstParty`.
    public func isThirdParty(host: String) -> Bool { !decide(host: host).isFirstParty }

    // MARK: Hints

    /// Generic words of bundle ids and User-Agent strings that say nothing about the app.
    static let genericWords: Set<String> = [
        "com", "org", "net", "app", "apps", "application", "mobile", "android", "ios", "ipad", "iphone", "ipod",
        "darwin", "cfnetwork", "okhttp", "dalvik", "mozilla", "linux", "windows", "macintosh", "applewebkit",
        "safari", "chrome", "version", "build", "release", "debug", "beta", "client", "sdk", "http", "https",
        "alamofire", "retrofit", "volley", "cronet", "java", "kotlin", "swift", "flutter", "dart", "reactnative",
        "expo", "gecko", "khtml", "like", "mobilesafari", "scale", "model", "google", "apple", "samsung", "pixel",
        "free", "lite", "prod", "production", "staging", "main", "official", "inc", "ltd", "llc", "gmbh",
    ]

    /// The distinctive words of a bundle id (`com.lumo.torch`) or User-Agent (`LumoTorch/2.1 (iPhone; iOS 17)`):
    /// its parts, the run of its distinctive parts joined (`lumotorch`), CamelCase split, lower case.
    /// Parenthesized User-Agent comments are skipped; a bundle id alone (`com.lumo.torch`) is read whole.
    public static func hintWords(from text: String) -> [String] {
        var words: [String] = []
        // User-Agent comments in parentheses describe the platform (`(iPhone; iOS 17.4)`), not the app.
        // Only reverse-DNS bundle ids are kept from them (Alamofire writes `(com.lumo.torch; build:210; iOS 17)`).
        var withoutComments = ""
        var comments = ""
        var depth = 0
        for character in text {
            if character == "(" {
                depth += 1
                comments.append(" ")
            } else if character == ")" {
                depth = max(0, depth - 1)
            } else if depth == 0 {
                withoutComments.append(character)
            } else {
                comments.append(character)
            }
        }
        let separators: (Character) -> Bool = { " []{};,".contains($0) }
        let bundleIDs = comments.split(whereSeparator: separators).filter { token in
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count >= 3 && parts.allSatisfy { $0.first?.isLetter == true }
        }
        // Product tokens are `name/version`; bundle ids are dot-separated; both end at spaces.
        let tokens = withoutComments.split(whereSeparator: separators) + bundleIDs
        for token in tokens {
            let product = token.split(separator: "/", maxSplits: 1).first ?? token
            if token.contains("/") || !product.contains(".") {
                words += wordsOfName(String(product))
            } else {
                let parts = product.split(separator: ".").map(String.init)
                words += parts.flatMap { wordsOfName($0) }
                words.append(parts.filter { !genericWords.contains($0.lowercased()) }.joined().lowercased())
            }
        }
        var seen = Set<String>()
        return words.filter { word in
            word.count >= 4 && !genericWords.contains(word) && word.allSatisfy { $0.isLetter || $0.isNumber }
                && seen.insert(word).inserted
        }
    }

    /// `LumoTorch` → `lumotorch`, `lumo`, `torch`; `lumo_torch-2` → `lumotorch`, `lumo`, `torch` (numbers dropped).
    private static func wordsOfName(_ name: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var previousWasLower = false
        for character in name {
            if !(character.isLetter || character.isNumber) {
                if !current.isEmpty { parts.append(current) }
                current = ""
                previousWasLower = false
                continue
            }
            if character.isUppercase && previousWasLower, !current.isEmpty {
                parts.append(current)
                current = ""
            }
            current.append(character)
            previousWasLower = character.isLowercase
        }
        if !current.isEmpty { parts.append(current) }
        let lowered = parts.map { $0.lowercased() }.filter { !$0.allSatisfy(\.isNumber) }
        let whole = lowered.joined()
        return lowered.count > 1 ? [whole] + lowered : lowered
    }

    private static func matchingHint(domain: String, hints: Set<String>) -> String? {
        guard !hints.isEmpty, let label = RegistrableDomain.nameLabel(of: domain) else { return nil }
        if hints.contains(label) { return label }
        let unhyphenated = String(label.filter { $0 != "-" })
        if hints.contains(unhyphenated) { return unhyphenated }
        for part in label.split(separator: "-") where part.count >= 5 && hints.contains(String(part)) {
            return String(part)
        }
        return nil
    }

    // MARK: Platform

    /// Registrable domains of the phone's own platform, never inferred as an app's first party.
    static let platformDomains: Set<String> = [
        "apple.com", "icloud.com", "mzstatic.com", "apple-cloudkit.com", "cdn-apple.com", "aaplimg.com",
        "apple-dns.net", "google.com", "googleapis.com", "gstatic.com", "gvt1.com", "gvt2.com", "android.com",
        "googleusercontent.com", "ggpht.com", "youtube.com", "ytimg.com", "microsoft.com", "windowsupdate.com",
        "samsung.com", "samsungcloud.com", "xiaomi.com", "huawei.com", "hicloud.com",
    ]

    private static func isPlatformDomain(_ domain: String) -> Bool { platformDomains.contains(domain) }

    /// A tracker, or a platform service of the directory: never the app's own. Infrastructure (CDN,
    /// cloud) may be: an app's CloudFront distribution or Firebase database is its back end.
    private static func isTrackerOrPlatform(_ entry: TrackerEntry?) -> Bool {
        guard let entry else { return false }
        return entry.isTracker || entry.category == .platform
    }
}

/// The answer of `FirstPartyPolicy.decide(host:)`.
public struct PartyDecision: Sendable, Hashable {
    public var isFirstParty: Bool
    public var reason: PartyReason
    public init(isFirstParty: Bool, reason: PartyReason) {
        self.isFirstParty = isFirstParty
        self.reason = reason
    }
}

/// Why a host was judged first or third party.
public enum PartyReason: Sendable, Hashable, CustomStringConvertible {
    /// Under a `--first-party` domain.
    case explicitDomain(String)
    /// `--first-party` was given and the host is under none of its domains.
    case notExplicit
    /// The host belongs to a tracker of the directory.
    case tracker(company: String, domain: String)
    /// The registrable domain with the most requests in the capture.
    case mostRequested(domain: String, requests: Int)
    /// The registrable domain's name matches a word of the app's bundle id or User-Agent.
    case appHint(domain: String, hint: String)
    /// A domain of the phone's platform (Apple, Google system services...).
    case platform(domain: String)
    /// None of the above: someone else.
    case unrelated

    public var description: String {
        switch self {
        case .explicitDomain(let domain): return "under --first-party \(domain)"
        case .notExplicit: return "not under any --first-party domain"
        case .tracker(let company, let domain): return "tracker domain \(domain) (\(company))"
        case .mostRequested(let domain, let requests): return "\(domain) is the app's most requested domain (\(requests) requests)"
        case .appHint(let domain, let hint): return "\(domain) matches the app name \"\(hint)\""
        case .platform(let domain): return "\(domain) is a platform service"
        case .unrelated: return "not a known app domain"
        }
    }
}
