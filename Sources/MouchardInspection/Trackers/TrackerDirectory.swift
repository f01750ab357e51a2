import Foundation
import MouchardWire

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
        let bytes = [UInt8](data)
        let reader = TrackerDirectoryReader(file: file, locator: TextLocator(bytes))
        if let bad = Self.firstInvalidUTF8(bytes) { throw reader.fail("text is not valid UTF-8", at: bad) }
        let document: JSONValue
        do {
            document = try JSONParser(maxDepth: 64, skipsByteOrderMark: true).parse(bytes)
        } catch {
            throw reader.fail(error.message, at: error.offset)
        }
        let entries = try reader.entries(of: document)
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

    /// The offset of the first byte that does not belong to valid UTF-8, nil when all is valid.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var input = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &input) {
            case .valid(let encoded): offset += encoded.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
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

/// Turns the parsed `trackers.json` document into entries, checking every field; errors point at
/// `line:column` and refuse a key written twice in one object (parsers differ on which one wins).
private struct TrackerDirectoryReader {
    let file: String
    let locator: TextLocator

    func location(_ offset: Int) -> JSONLocation {
        let p = locator.position(of: offset)
        return JSONLocation(line: p.line, column: p.column, offset: offset)
    }

    func fail(_ message: String, at offset: Int, entry: String? = nil) -> TrackerDirectoryError {
        TrackerDirectoryError(file: file, location: location(offset), entry: entry, message: message)
    }

    /// The members of an object, nil when `value` is not one; a duplicated key is an error.
    func uniqueMembers(_ value: JSONValue, entry: String? = nil) throws(TrackerDirectoryError) -> [JSONMember]? {
        guard let members = value.members else { return nil }
        var seen: [String: Int] = [:]
        for member in members {
            if let first = seen[member.key] {
                throw fail("duplicate key \"\(member.key)\" (first at \(location(first)))", at: member.keyOffset, entry: entry)
            }
            seen[member.key] = member.keyOffset
        }
        return members
    }

    /// The kind of a value for messages, without article: `object`, `number`, `null`...
    func kind(_ value: JSONValue) -> String {
        let name = value.kindName
        if name.hasPrefix("an ") { return String(name.dropFirst(3)) }
        if name.hasPrefix("a ") { return String(name.dropFirst(2)) }
        return name
    }

    func entries(of document: JSONValue) throws(TrackerDirectoryError) -> [TrackerEntry] {
        guard let members = try uniqueMembers(document) else {
            throw fail("expected a JSON object at the top level, found \(kind(document))", at: document.offset)
        }
        var version: Int?
        var trackers: JSONValue?
        for member in members {
            switch member.key {
            case "version":
                guard case .number(let digits) = member.value.kind else {
                    throw fail("\"version\" must be an integer", at: member.value.offset)
                }
                let text = String(decoding: digits, as: UTF8.self)
                let value = Double(text) ?? .nan
                guard value == value.rounded(), !text.contains("."), !text.contains("e"), !text.contains("E") else {
                    throw fail("\"version\" must be an integer", at: member.value.offset)
                }
                // `Int(exactly:)`: a version beyond Int (`1` followed by 30 zeros) is unsupported, not a trap.
                guard let number = Int(exactly: value), number == TrackerDirectory.supportedVersion else {
                    throw fail("unsupported version \(text.prefix(40)) (this build reads version \(TrackerDirectory.supportedVersion))",
                               at: member.value.offset)
                }
                version = number
            case "description":
                guard case .string = member.value.kind else {
                    throw fail("\"description\" must be a string", at: member.value.offset)
                }
            case "trackers":
                trackers = member.value
            default:
                throw fail("unknown top-level field \"\(member.key)\" (expected version, description, trackers)",
                           at: member.keyOffset)
            }
        }
        guard version != nil else { throw fail("missing \"version\"", at: document.offset) }
        guard let trackers else { throw fail("missing \"trackers\"", at: document.offset) }
        guard let domains = try uniqueMembers(trackers) else {
            throw fail("\"trackers\" must be an object keyed by domain, found \(kind(trackers))", at: trackers.offset)
        }
        var entries: [TrackerEntry] = []
        entries.reserveCapacity(domains.count)
        for member in domains {
            entries.append(try entry(member))
        }
        return entries
    }

    func entry(_ member: JSONMember) throws(TrackerDirectoryError) -> TrackerEntry {
        let domain = member.key
        if let problem = TrackerDirectory.domainProblem(domain) {
            throw fail(problem, at: member.keyOffset, entry: domain)
        }
        guard let fields = try uniqueMembers(member.value, entry: domain) else {
            throw fail("expected an object, found \(kind(member.value))", at: member.value.offset, entry: domain)
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
                    throw fail("unknown category \"\(name)\" (one of: \(allowed))", at: field.value.offset, entry: domain)
                }
                category = known
            default:
                throw fail("unknown field \"\(field.key)\" (expected company, product, category, source)",
                           at: field.keyOffset, entry: domain)
            }
        }
        let entryOffset = member.value.offset
        guard let company else { throw fail("missing \"company\"", at: entryOffset, entry: domain) }
        guard let category else { throw fail("missing \"category\"", at: entryOffset, entry: domain) }
        guard let source else { throw fail("missing \"source\"", at: entryOffset, entry: domain) }
        return TrackerEntry(domain: domain, company: company, product: product, category: category, source: source)
    }

    func nonEmptyString(_ field: JSONMember, entry: String) throws(TrackerDirectoryError) -> String {
        guard let text = field.value.stringValue else {
            throw fail("\"\(field.key)\" must be a string, found \(kind(field.value))", at: field.value.offset, entry: entry)
        }
        guard !text.allSatisfy(\.isWhitespace) else {
            throw fail("\"\(field.key)\" must not be empty", at: field.value.offset, entry: entry)
        }
        return text
    }
}
