/// One domain of `Rules/trackers.json`: who runs it, who owns that company, what kind of service it is,
/// and where we learned it.
///
/// Naming rule, the same for every entry ("brand shown, parent kept"):
/// - `brand` is the name the service is sold under, the one a reader recognises in an SDK list or a
///   privacy policy (`Adjust`, `ironSource`, `WhatsApp`); reports show it;
/// - `company` is the company family: the short name of the owner at the top of the ownership chain
///   (`AppLovin` for Adjust, `Unity` for ironSource, `Meta` for WhatsApp); reports group by it;
/// - `owner` is that owner's legal name (`AppLovin Corporation`) and `country` its home country.
/// The file writes brand and family in one field, `"company": "Adjust (AppLovin)"`, or `"AppsFlyer"`
/// when they are one name. A product is not a brand: Crashlytics is a product (`product`) of Google.
public struct TrackerEntry: Sendable, Hashable {
    /// The domain as written in the file (lower case, no trailing dot); it matches itself and its subdomains.
    public var domain: String
    /// The company family: short name of the top owner, e.g. `Google`, `AppsFlyer`, `AppLovin` (for Adjust).
    public var company: String
    /// The brand the service is sold under, e.g. `Adjust`; equal to `company` when the file gives none.
    public var brand: String
    /// The kind of service; `category.isTracker` is false for CDNs, cloud hosting and platform services.
    public var category: TrackerCategory
    /// Ownership and provenance, behind one reference: a lookup hit copies the entry, and these fields are
    /// read only when a report or `trackers lookup` explains the match.
    private let details: Details

    /// The legal owner at the top of the chain, e.g. `Alphabet Inc.` for Google, `AppLovin Corporation` for Adjust.
    public var owner: String { details.owner }
    /// ISO 3166-1 alpha-2 code of the owner's home country (`US`, `IL`, `CN`).
    public var country: String { details.country }
    /// The SDK or service, e.g. `Firebase Crashlytics`; nil when the file does not say.
    public var product: String? { details.product }
    /// Where the attribution comes from: URL of the vendor's documentation page or of SDK source code.
    /// For a `.verified` entry it is the page or code that was read; for an `.unverified` one it is only
    /// the vendor page named from knowledge, never compared with a copy of it.
    public var source: String { details.source }
    /// Whether the attribution was checked against the source (`verified`) or not (`unverified`).
    public var basis: TrackerBasis { details.checked == nil ? .unverified : .verified }
    /// The date (`YYYY-MM-DD`) the domain's attribution and ownership were checked; nil when unverified.
    public var checked: String? { details.checked }
    /// What the source showed about the domain and its owner; nil when unverified.
    public var evidence: String? { details.evidence }
    /// URL that showed the owner (an acquisition notice, the owner's own page) when `source` does not.
    public var ownerSource: String? { details.ownerSource }
    /// Whether the attribution was checked against stored material (source, date and evidence present).
    public var isVerified: Bool { details.checked != nil }
    /// What the source says about the domain, in a few words (free text, optional).
    public var note: String? { details.note }

    public init(domain: String, company: String, brand: String? = nil, owner: String, country: String,
                product: String? = nil, category: TrackerCategory, source: String, verification: Verification? = nil,
                note: String? = nil) {
        self.domain = domain
        self.company = company
        self.brand = brand ?? company
        self.category = category
        self.details = Details(owner: owner, country: country, product: product, source: source, checked: verification?.checked,
                               evidence: verification?.evidence, ownerSource: verification?.ownerSource, note: note)
    }

    /// What a verified entry adds: when it was checked, what the source showed, and where the owner was
    /// confirmed when the source does not name it.
    public struct Verification: Sendable, Hashable {
        public var checked: String
        public var evidence: String
        public var ownerSource: String?

        public init(checked: String, evidence: String, ownerSource: String? = nil) {
            self.checked = checked
            self.evidence = evidence
            self.ownerSource = ownerSource
        }
    }

    public static func == (a: TrackerEntry, b: TrackerEntry) -> Bool {
        a.domain == b.domain && a.company == b.company && a.brand == b.brand && a.category == b.category
            && (a.details === b.details || a.details.values == b.details.values)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(domain)
        hasher.combine(company)
        hasher.combine(category)
    }

    private final class Details: Sendable {
        let owner: String
        let country: String
        let product: String?
        let source: String
        let checked: String?
        let evidence: String?
        let ownerSource: String?
        let note: String?

        init(owner: String, country: String, product: String?, source: String, checked: String?, evidence: String?,
             ownerSource: String?, note: String?) {
            self.owner = owner
            self.country = country
            self.product = product
            self.source = source
            self.checked = checked
            self.evidence = evidence
            self.ownerSource = ownerSource
            self.note = note
        }

        var values: [String?] { [owner, country, product, source, checked, evidence, ownerSource, note] }
    }

    /// Whether this entry names a tracker (advertising, analytics, attribution...), as opposed to
    /// infrastructure that only carries the app's own traffic (CDN, cloud storage, platform services).
    public var isTracker: Bool { category.isTracker }

    /// `Adjust (AppLovin)`: the brand with its company family, or the brand alone when they are the same.
    public var brandAndCompany: String { Self.brandAndCompany(brand: brand, company: company) }

    /// The file's `company` field read back: `Adjust (AppLovin)` → (`Adjust`, `AppLovin`), `AppsFlyer` →
    /// (`AppsFlyer`, `AppsFlyer`); nil when a part is empty or the parentheses are unbalanced.
    public static func brandAndCompany(parsing text: String) -> (brand: String, company: String)? {
        guard text.last == ")" else {
            return text.contains("(") || text.contains(")") || text.first == " " || text.last == " " ? nil : (text, text)
        }
        guard let open = text.lastIndex(of: "("), open > text.startIndex, text[text.index(before: open)] == " " else { return nil }
        let brand = text[..<text.index(before: open)]
        let family = text[text.index(after: open)..<text.index(before: text.endIndex)]
        guard let b = brand.first, let f = family.first, b != " ", f != " ", brand.last != " ", family.last != " ",
              !brand.contains("("), !brand.contains(")"), !family.contains(")"), brand != family else { return nil }
        return (String(brand), String(family))
    }

    /// `Adjust (AppLovin)`; `AppsFlyer` when brand and company family are one name.
    public static func brandAndCompany(brand: String, company: String?) -> String {
        guard let company, !company.isEmpty, company != brand else { return brand }
        return "\(brand) (\(company))"
    }
}
