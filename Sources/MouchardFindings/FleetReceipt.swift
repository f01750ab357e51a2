/// Who received one category of the user's data from one app version, over the sessions of a fleet
/// query: a line of the fleet report ("companies that received each category, per app").
public struct FleetReceipt: Sendable, Hashable, Codable {
    /// The app and version the sessions were recorded for ("" when a session did not say).
    public var app: String
    public var appVersion: String
    public var category: FindingCategory
    /// The company behind the hosts (the tracker directory's brand), or the host when unknown.
    public var company: String
    /// The hosts of that company that received it.
    public var hosts: [String]
    public var thirdParty: Bool
    public var findings: Int
    /// In how many sessions.
    public var sessions: Int

    public init(app: String, appVersion: String, category: FindingCategory, company: String, hosts: [String], thirdParty: Bool,
                findings: Int, sessions: Int) {
        self.app = app
        self.appVersion = appVersion
        self.category = category
        self.company = company
        self.hosts = hosts
        self.thirdParty = thirdParty
        self.findings = findings
        self.sessions = sessions
    }

    enum CodingKeys: String, CodingKey {
        case app, category, company, hosts, findings, sessions
        case appVersion = "app_version"
        case thirdParty = "third_party"
    }
}
