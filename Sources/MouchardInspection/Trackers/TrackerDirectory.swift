import Foundation
import MouchardWire

/// The map from domains to the companies and SDKs behind them (`Rules/trackers.json`), and the lookup that
/// attributes a request's host to a tracker.
///
/// File format (documented in `docs/trackers.md`), one entry per line:
///
/// ```json
/// { "version": 2,
///   "description": "optional free text",
///   "trackers": {
///     "appsflyersdk.com": {"company": "AppsFlyer", "owner": "AppsFlyer Ltd.", "country": "IL",
///                          "product": "AppsFlyer SDK", "category": "attribution",
///                          "basis": "verified", "source": "https://dev.appsflyer.com/...",
///                          "checked": "2026-12-02", "evidence": "what the source shows"} } }
/// ```
///
/// `basis` says whether the attribution was checked against its source: `verified` entries carry the
/// `checked` date and the `evidence` found (and `owner_source` when the owner was confirmed elsewhere);
/// `unverified` entries carry neither, their `source` being only the vendor page named from knowledge.
///
/// Loading is strict: an unknown field, a missing or empty required field, an unknown category or basis,
/// a verified entry without date or evidence, an unverified one with them, a country that is not two
/// upper-case letters, a `checked` that is not a `YYYY-MM-DD` date, a `source` that is not an `https://`
/// URL, a domain that is not a lower-case host name of at least two labels, a domain written twice, or a
/// brand given two different owners is an error that names the file, line, column and entry.
///
/// A domain matches itself and all its subdomains; the longest matching suffix wins (so
/// `ads.tiktok.com` can be advertising while `tiktok.com` is social). `lookup(host:)` walks the host's
/// label suffixes from the longest and does one dictionary probe per label: O(labels), no scan.
public struct TrackerDirectory: Sendable {
    /// The only file format version this build reads.
    public static let supportedVersion = 2

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

    /// Every entry that matches a host, longest domain first: the first is what `lookup(host:)` returns,
    /// the others are the shorter entries it overrides (for `mouchard trackers lookup`).
    public func matches(host: String) -> [TrackerEntry] {
        guard let name = HostName.normalizedUTF8(host), !HostName.isIPAddress(utf8: name) else { return [] }
        var found: [TrackerEntry] = []
        var start = 0
        while let dot = name[start...].firstIndex(of: UInt8(ascii: ".")) {
            if let entry = byDomain[String(decoding: name[start...], as: UTF8.self)] { found.append(entry) }
            start = dot + 1
        }
        return found
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
        // One naming rule: a company family has one owner and country, a brand belongs to one company.
        var firstOfCompany: [String: (entry: TrackerEntry, offset: Int)] = [:]
        var firstOfBrand: [String: (entry: TrackerEntry, offset: Int)] = [:]
        for member in domains {
            let parsed = try entry(member)
            if let first = firstOfCompany[parsed.company] {
                if first.entry.owner != parsed.owner || first.entry.country != parsed.country {
                    throw fail("company \"\(parsed.company)\" has owner \"\(parsed.owner)\" (\(parsed.country)) here but "
                               + "\"\(first.entry.owner)\" (\(first.entry.country)) at \(location(first.offset)) (entry \"\(first.entry.domain)\")",
                               at: member.value.offset, entry: parsed.domain)
                }
            } else {
                firstOfCompany[parsed.company] = (parsed, member.value.offset)
            }
            if let first = firstOfBrand[parsed.brand], first.entry.company != parsed.company {
                throw fail("brand \"\(parsed.brand)\" belongs to company \"\(parsed.company)\" here but to \"\(first.entry.company)\" "
                           + "at \(location(first.offset)) (entry \"\(first.entry.domain)\")", at: member.value.offset, entry: parsed.domain)
            }
            if firstOfBrand[parsed.brand] == nil { firstOfBrand[parsed.brand] = (parsed, member.value.offset) }
            entries.append(parsed)
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
        var brand: String?
        var note: String?
        var owner: String?
        var country: String?
        var product: String?
        var category: TrackerCategory?
        var source: String?
        var checked: String?
        var evidence: String?
        var ownerSource: String?
        var basis: (value: TrackerBasis, offset: Int)?
        for field in fields {
            switch field.key {
            case "company":
                let named = try nonEmptyString(field, entry: domain)
                guard let split = TrackerEntry.brandAndCompany(parsing: named) else {
                    throw fail("\"company\" must be `Brand (Company)` or `Company`, found \"\(named.prefix(80))\"",
                               at: field.value.offset, entry: domain)
                }
                (brand, company) = split
            case "note":
                note = try nonEmptyString(field, entry: domain)
            case "owner":
                owner = try nonEmptyString(field, entry: domain)
            case "country":
                country = try validString(field, entry: domain, TrackerDirectory.isCountryCode) {
                    "\"country\" must be an ISO 3166-1 alpha-2 code in upper case (US, DE, CN), found \"\($0.prefix(20))\""
                }
            case "product":
                product = try nonEmptyString(field, entry: domain)
            case "source":
                source = try validString(field, entry: domain, TrackerDirectory.isWebURL) { _ in
                    "\"source\" must be the https:// URL of the documentation page or source file"
                }
            case "owner_source":
                ownerSource = try validString(field, entry: domain, TrackerDirectory.isWebURL) { _ in
                    "\"owner_source\" must be the https:// URL of the page that names the owner"
                }
            case "checked":
                checked = try validString(field, entry: domain, TrackerDirectory.isCalendarDate) {
                    "\"checked\" must be a date written YYYY-MM-DD, found \"\($0.prefix(20))\""
                }
            case "evidence":
                evidence = try nonEmptyString(field, entry: domain)
            case "basis":
                let name = try nonEmptyString(field, entry: domain)
                guard let known = TrackerBasis(rawValue: name) else {
                    throw fail("unknown basis \"\(name.prefix(40))\" (verified or unverified)", at: field.value.offset, entry: domain)
                }
                basis = (known, field.value.offset)
            case "category":
                let name = try nonEmptyString(field, entry: domain)
                guard let known = TrackerCategory(rawValue: name) else {
                    let allowed = TrackerCategory.allCases.map(\.rawValue).joined(separator: ", ")
                    throw fail("unknown category \"\(name)\" (one of: \(allowed))", at: field.value.offset, entry: domain)
                }
                category = known
            default:
                throw fail("unknown field \"\(field.key)\" (expected \(Self.fieldNames))", at: field.keyOffset, entry: domain)
            }
        }
        let entryOffset = member.value.offset
        guard let company else { throw fail("missing \"company\"", at: entryOffset, entry: domain) }
        guard let owner else { throw fail("missing \"owner\"", at: entryOffset, entry: domain) }
        guard let country else { throw fail("missing \"country\"", at: entryOffset, entry: domain) }
        guard let category else { throw fail("missing \"category\"", at: entryOffset, entry: domain) }
        guard let source else { throw fail("missing \"source\"", at: entryOffset, entry: domain) }
        guard let basis else { throw fail("missing \"basis\" (verified or unverified)", at: entryOffset, entry: domain) }
        var verification: TrackerEntry.Verification?
        switch basis.value {
        case .verified:
            guard let checked else { throw fail("a verified entry needs \"checked\" (the date)", at: basis.offset, entry: domain) }
            guard let evidence else {
                throw fail("a verified entry needs \"evidence\" (what the source shows)", at: basis.offset, entry: domain)
            }
            verification = TrackerEntry.Verification(checked: checked, evidence: evidence, ownerSource: ownerSource)
        case .unverified:
            if checked != nil || evidence != nil || ownerSource != nil {
                throw fail("an unverified entry must not carry \"checked\", \"evidence\" or \"owner_source\"",
                           at: basis.offset, entry: domain)
            }
        }
        return TrackerEntry(domain: domain, company: company, brand: brand, owner: owner, country: country, product: product,
                            category: category, source: source, verification: verification, note: note)
    }

    static let fieldNames = "company, owner, country, product, category, basis, source, checked, evidence, owner_source, note"

    /// A non-empty string that `isValid` accepts; else the error `problem` describes, at the value.
    func validString(_ field: JSONMember, entry: String, _ isValid: (String) -> Bool,
                     problem: (String) -> String) throws(TrackerDirectoryError) -> String {
        let text = try nonEmptyString(field, entry: entry)
        guard isValid(text) else { throw fail(problem(text), at: field.value.offset, entry: entry) }
        return text
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

extension TrackerDirectory {
    /// Two upper-case ASCII letters (ISO 3166-1 alpha-2 shape).
    static func isCountryCode(_ text: String) -> Bool {
        text.utf8.count == 2 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// `https://host/...` (or `http://`), with a host and no spaces.
    static func isWebURL(_ text: String) -> Bool {
        let rest: Substring
        if text.hasPrefix("https://") { rest = text.dropFirst(8) } else if text.hasPrefix("http://") { rest = text.dropFirst(7) } else { return false }
        guard let first = rest.first, first != "/" else { return false }
        return !text.contains(where: { $0 == " " || $0.isNewline })
    }

    /// `YYYY-MM-DD` with a month 01-12 and a day that exists in that month (leap years included).
    static func isCalendarDate(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              year >= 2000, (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= days[month - 1]
    }
}
