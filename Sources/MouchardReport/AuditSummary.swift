import Foundation
import MouchardFindings
import MouchardInspection

/// The one summary of an audit that `scan` and `report` both print: verdict numbers, per-category
/// counts, destinations, the category × company data-flow matrix, a timeline, hosts only seen in
/// DNS/SNI and the methodology. Built by `AuditSummary.build`; rendered by the report renderers and
/// encoded as extra top-level fields of the findings JSON.
///
/// Long lists are capped (see `AuditSummaryLimits`); what was left out is counted in `omitted`.
public struct AuditSummary: Sendable, Hashable, Codable {
    public var verdict: Verdict
    public var categories: [CategoryCount]
    public var destinations: [Destination]
    public var dataFlows: DataFlowMatrix
    public var findingGroups: [FindingGroup]
    public var timeline: Timeline
    public var metadataOnlyHosts: [MetadataOnlyHost]
    public var methodology: Methodology
    public var omitted: Omitted

    /// The headline numbers and the plain-words verdict.
    public struct Verdict: Sendable, Hashable, Codable {
        /// Flows that carried an HTTP request.
        public var requests: Int
        /// Every flow, including TLS connections whose content stayed encrypted.
        public var flows: Int
        public var findings: Int
        /// Requests with at least one finding.
        public var leakingRequests: Int
        /// Categories found, most findings first.
        public var categoriesFound: [FindingCategory]
        /// Named companies that received personal data.
        public var companies: [String]
        /// Hosts with findings whose owner is unknown (third parties).
        public var unattributedHosts: Int
        /// The app's own hosts (first party, no tracker entry) that received personal data.
        public var appHosts: Int
        /// Distinct hosts that received personal data.
        public var hostsReceivingData: Int
        public var thirdPartyHostsReceivingData: Int
        /// Findings sent as cleartext HTTP / over decrypted TLS / only seen as metadata.
        public var cleartextFindings: Int
        public var encryptedFindings: Int
        public var metadataFindings: Int
        /// Destinations whose TLS was not decrypted (pinned or ignored) or QUIC.
        public var undecryptedHosts: Int
        /// One or two sentences a non-engineer can read.
        public var headline: String
        /// Supporting sentence: what the numbers cover.
        public var detail: String
    }

    /// Findings of one category.
    public struct CategoryCount: Sendable, Hashable, Codable {
        public var category: FindingCategory
        public var findings: Int
        public var requests: Int
        public var hosts: Int
        public var companies: Int
        public var cleartext: Int
    }

    /// One host the device talked to.
    public struct Destination: Sendable, Hashable, Codable {
        public var host: String
        public var company: String?
        public var trackerCategory: String?
        public var thirdParty: Bool
        /// Transport classes seen, most exposed first.
        public var transports: [DestinationTransport]
        /// Flows that carried a request.
        public var requests: Int
        /// Connections or flows, including those without a visible request.
        public var flows: Int
        public var bytesSent: Int
        public var bytesReceived: Int
        public var findings: Int
        public var categories: [FindingCategory]
        /// Addresses seen for the host (DNS answers, then server addresses of its flows), at most 8.
        public var addresses: [String]
        /// The tracker brand's company family (`AppLovin` for Adjust) and its country, from the directory.
        public var owner: String? = nil
        public var ownerCountry: String? = nil
        /// A CDN, cloud or platform service that is not a tracker: who runs it (`Amazon CloudFront, Amazon, infrastructure`).
        public var service: String? = nil
        /// Why the host is first or third party.
        public var partyReason: String? = nil
        /// `verified` or `unverified`: whether the directory's attribution (company or service) was checked
        /// against its source; nil for hosts the directory does not know.
        public var attributionBasis: String? = nil
        /// When a verified attribution was checked (`YYYY-MM-DD`).
        public var attributionChecked: String? = nil
        /// What the host's exchanges spoke besides HTTP/1: `HTTP/2`, `HTTP/3`, then what they carried
        /// besides plain HTTP: `WebSocket`, `gRPC`, `gRPC-Web`, `SSE`.
        public var protocols: [String]? = nil

        /// `Adjust (AppLovin)`, `AppsFlyer`, nil for an unknown host.
        public var companyAndOwner: String? { company.map { TrackerEntry.brandAndCompany(brand: $0, company: owner) } }
    }

    /// Findings per (category, company): rows are categories, columns companies.
    public struct DataFlowMatrix: Sendable, Hashable, Codable {
        public var categories: [FindingCategory]
        /// Company names; hosts of unknown owner appear as their host name; overflow as `others (N ...)`.
        public var companies: [String]
        /// `cells[row][column]` = findings of `categories[row]` sent to `companies[column]`.
        public var cells: [[Int]]
    }

    /// Requests and findings over time, in equal buckets from `start`.
    public struct Timeline: Sendable, Hashable, Codable {
        /// ISO 8601 time of the first bucket start, nil when nothing was timed.
        public var start: String?
        public var bucketSeconds: Double
        public var durationSeconds: Double
        public var points: [TimelinePoint]
    }

    /// One timeline bucket.
    public struct TimelinePoint: Sendable, Hashable, Codable {
        /// Seconds from the timeline start to this bucket's start.
        public var offset: Double
        public var requests: Int
        public var findings: Int
        /// Categories found in this bucket.
        public var categories: [FindingCategory]
    }

    /// A host named in DNS answers or a TLS ClientHello but never seen carrying a readable request.
    public struct MetadataOnlyHost: Sendable, Hashable, Codable {
        public var host: String
        /// `dns`, `sni`, or both.
        public var seenIn: [String]
        public var company: String?
        public var trackerCategory: String?
        public var thirdParty: Bool
        /// ISO 8601 time first seen.
        public var firstSeen: String?
        public var addresses: [String]
    }

    /// How the audit was made.
    public struct Methodology: Sendable, Hashable, Codable {
        public var tool: String
        public var toolVersion: String
        public var inputs: [String]
        public var source: String
        public var app: String?
        public var firstPartyDomains: [String]
        public var deviceName: String?
        public var deviceProfile: [MaskedValue]
        public var rulesVersion: String
        /// ISO 8601 times of the first and last traffic seen.
        public var captureStart: String?
        public var captureEnd: String?
        public var durationSeconds: Double
        public var dnsObservations: Int
        /// What the inputs could not give, one line per class with its count (`AuditContext.warnings`).
        public var warnings: [String] = []
    }

    /// How many entries each capped list left out.
    public struct Omitted: Sendable, Hashable, Codable {
        public var destinations: Int
        public var metadataOnlyHosts: Int
        public var findingPatterns: Int
        public var matrixCompanies: Int
    }
}

/// Caps that keep a report readable and bounded whatever the session size.
public struct AuditSummaryLimits: Sendable, Hashable {
    public var destinations: Int
    public var metadataOnlyHosts: Int
    /// Patterns shown per (category, host) group.
    public var patternsPerGroup: Int
    /// Patterns shown over all groups.
    public var patternsTotal: Int
    public var matrixCompanies: Int
    public var timelineBuckets: Int

    public init(destinations: Int = 250, metadataOnlyHosts: Int = 250, patternsPerGroup: Int = 30,
                patternsTotal: Int = 1500, matrixCompanies: Int = 14, timelineBuckets: Int = 120) {
        self.destinations = destinations
        self.metadataOnlyHosts = metadataOnlyHosts
        self.patternsPerGroup = patternsPerGroup
        self.patternsTotal = patternsTotal
        self.matrixCompanies = matrixCompanies
        self.timelineBuckets = timelineBuckets
    }

    public static let standard = AuditSummaryLimits()
}
