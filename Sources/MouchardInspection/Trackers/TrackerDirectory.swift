import Foundation

/// The map from domains to the companies and SDKs behind them (`Rules/trackers.json`), and the lookup that
/// attributes a request's host to a tracker.
///
/// File format (documented in `Rules/README.md`, section "trackers.json"):
///
/// ```json
/// { "version": 1,
///   "description": "optional free text",
///   "trackers": {
///     "appsflyersdk.com": { "company": "AppsFlyer", "product": "AppsFlyer SDK",
///                           "category": "attribution", "source": "AppsFlyer docs: SDK network whitelist" } } }
/// ```
///
/// Loading is strict: an unknown field, a missing or empty required field, an unknown category, a domain
/// that is not a lower-case host name of at least two labels, or a domain written twice is an error that
/// names the file, line, column and entry.
///
/// A domain matches itself and all its subdomains; the longest matching suffix wins (so
/// `ads.tiktok.com` can be advertising while `tiktok.com` is social). `lookup(host:)` walks the host's
/// label suffixes from the longest and does one dictionary probe per label: O(labels), no scan.
public struct TrackerDirectory: Sendable {
    /// The only file format version this build reads.
    public static let supportedVersion = 1

    /// Every entry, sorted by domain.
    public let entries: [TrackerEntry]
    private let byDomain: [String: TrackerEntry]

    /// A directory from entries built in code. Throws when two entries have the same domain or a domain is
    /// not a valid lower-case host name.
    public init(entries: [TrackerEntry]) throws(TrackerDirectoryError) {
        var byDomain: [String: TrackerEntry] = [:]
        byDomain.reserveCapacity(entries.count)
        for entry in entries {
            if let problem = Self.domainProblem(entry.domain) {
                throw TrackerDirectoryError(file: "(entries)", location: nil, entry: entry.domain, message: problem)
            }
            if byDomain[entry.domain] != nil {
                throw TrackerDirectoryError(file: "(entries)", location: nil, entry: entry.domain,
                                            message: "duplicate domain")
            }
            byDomain[entry.domain] = entry
        }
        self.byDomain = byDomain
        self.entries = entries.sorted { $0.domain < $1.domain }
    }

    /// Reads a tracker directory from the bytes of a JSON file; `file` only names the file in errors.
    public init(jsonData data: Data, file: String = "trackers.json") throws(TrackerDirectoryError) {
        let document: LocatedJSON
        do {
            document = try LocatedJSONParser().parse(data)
        } catch {
            throw TrackerDirectoryError(file: file, location: error.location, message: error.message)
        }
        let entries = try TrackerDirectoryReader(file: file).entries(of: document)
        try self.init(entries: entries)
    }

    /// Number of domains.
    public var count: Int { byDomain.count }

    /// The entry for exactly this domain (no suffix walk), nil when absent.
    public func entry(forDomain domain: String) -> TrackerEntry? { byDomain[domain] }

    /// The tracker a host belongs to: the entry of the longest domain that is the host or a parent of it.
    ///
    /// Case-insensitive; a port (`host:443`), brackets and a trailing dot are ignored. `notappsflyer.com`
    /// does not match `appsflyer.com`: matching is on whole labels.
    public func lookup(host: String) -> TrackerEntry? {
        guard let name = HostName.normalizedUTF8(host), !HostName.isIPAddress(utf8: name) else { return nil }
        // Probe `a.b.c.d`, `b.c.d`, `c.d`; never the bare last label (entries have at least two labels).
        var start = 0
        while let dot = name[start...].firstIndex(of: UInt8(ascii: ".")) {
            if let entry = byDomain[String(decoding: name[start...], as: UTF8.self)] { return entry }
            start = dot + 1
        }
        return nil
    }

    /// Why a domain key is not acceptable, nil when it is.
    static func domainProblem(_ domain: String) -> String? {
        if domain.isEmpty { return "empty domain" }
        if domain.utf8.count > 253 { return "domain longer than 253 characters" }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count < 2 { return "domain must have at least two labels (a whole top-level domain is too broad)" }
        for label in labels {
            if label.isEmpty { return "empty label in domain (leading, trailing or double dot)" }
            if label.utf8.count > 63 { return "label \"\(label)\" longer than 63 characters" }
            for byte in label.utf8 {
                let ok = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                if !ok {
                    if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
                        return "domain must be written in lower case"
                    }
                    return "invalid character in domain (letters a-z, digits, '-' and '_' only; punycode for IDN)"
                }
            }
            if label.hasPrefix("-") || label.hasSuffix("-") {
                return "label \"\(label)\" starts or ends with '-'"
            }
        }
        return nil
    }
}

/// Turns the parsed `trackers.json` document into entries, checking every field.
private struct TrackerDirectoryReader {
    let file: String

    func fail(_ message: String, at location: JSONLocation, entry: String? = nil) -> TrackerDirectoryError {
        TrackerDirectoryError(file: file, location: location, entry: entry, message: message)
    }

    func entries(of document: LocatedJSON) throws(TrackerDirectoryError) -> [TrackerEntry] {
        guard case .object(let members, let rootLocation) = document else {
            throw fail("expected a JSON object at the top level, found \(document.kindName)", at: document.location)
        }
        var version: Int?
        var trackers: LocatedJSON?
        for member in members {
            switch member.key {
            case "version":
                guard case .number(let value, let text, _) = member.value, value == value.rounded(),
                      !text.contains("."), !text.contains("e"), !text.contains("E") else {
                    throw fail("\"version\" must be an integer", at: member.value.location)
                }
                guard Int(value) == TrackerDirectory.supportedVersion else {
                    throw fail("unsupported version \(text) (this build reads version \(TrackerDirectory.supportedVersion))",
                               at: member.value.location)
                }
                version = Int(value)
            case "description":
                guard case .string = member.value else {
                    throw fail("\"description\" must be a string", at: member.value.location)
                }
            case "trackers":
                trackers = member.value
            default:
                throw fail("unknown top-level field \"\(member.key)\" (expected version, description, trackers)",
                           at: member.keyLocation)
            }
        }
        guard version != nil else { throw fail("missing \"version\"", at: rootLocation) }
        guard let trackers else { throw fail("missing \"trackers\"", at: rootLocation) }
        guard case .object(let domains, _) = trackers else {
            throw fail("\"trackers\" must be an object keyed by domain, found \(trackers.kindName)", at: trackers.location)
        }
        var entries: [TrackerEntry] = []
        entries.reserveCapacity(domains.count)
        for member in domains {
            entries.append(try entry(member))
        }
        return entries
    }

    func entry(_ member: LocatedJSON.Member) throws(TrackerDirectoryError) -> TrackerEntry {
        let domain = member.key
        if let problem = TrackerDirectory.domainProblem(domain) {
            throw fail(problem, at: member.keyLocation, entry: domain)
        }
        guard case .object(let fields, let entryLocation) = member.value else {
            throw fail("expected an object, found \(member.value.kindName)", at: member.value.location, entry: domain)
        }
        var company: String?
        var product: String?
        var category: TrackerCategory?
        var source: String?
        for field in fields {
            switch field.key {
            case "company":
                company = try nonEmptyString(field, entry: domain)
            case "product":
                product = try nonEmptyString(field, entry: domain)
            case "source":
                source = try nonEmptyString(field, entry: domain)
            case "category":
                let name = try nonEmptyString(field, entry: domain)
                guard let known = TrackerCategory(rawValue: name) else {
                    let allowed = TrackerCategory.allCases.map(\.rawValue).joined(separator: ", ")
                    throw fail("unknown category \"\(name)\" (one of: \(allowed))", at: field.value.location, entry: domain)
                }
                category = known
            default:
                throw fail("unknown field \"\(field.key)\" (expected company, product, category, source)",
                           at: field.keyLocation, entry: domain)
            }
        }
        guard let company else { throw fail("missing \"company\"", at: entryLocation, entry: domain) }
        guard let category else { throw fail("missing \"category\"", at: entryLocation, entry: domain) }
        guard let source else { throw fail("missing \"source\"", at: entryLocation, entry: domain) }
        return TrackerEntry(domain: domain, company: company, product: product, category: category, source: source)
    }

    func nonEmptyString(_ field: LocatedJSON.Member, entry: String) throws(TrackerDirectoryError) -> String {
        guard case .string(let text, _) = field.value else {
            throw fail("\"\(field.key)\" must be a string, found \(field.value.kindName)", at: field.value.location, entry: entry)
        }
        guard !text.allSatisfy(\.isWhitespace) else {
            throw fail("\"\(field.key)\" must not be empty", at: field.value.location, entry: entry)
        }
        return text
    }
}
