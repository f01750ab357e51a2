/// One proven leak: which data of the user went where, how it was hidden, and the rule that saw it.
///
/// The JSON shape is the contract of docs/findings.md (its contract fields never change);
/// the extra fields (`flow`, `confidence`, `severity`, `description`, `time`, ...) are additions.
public struct Finding: Sendable, Hashable, Codable {
    /// The kind of personal data (`device-id`, `location`, ... in the JSON).
    public var category: FindingCategory
    /// The data type: `idfa`, `imei`, `email`, `coordinates`, `contact-phone`, ...
    public var type: String
    public var request: FindingRequest
    public var destination: FindingDestination
    /// `url`, `query:NAME`, `header:NAME`, `cookie:NAME`, `body`, `body:JSONPATH`, `form:NAME`, `multipart:NAME`.
    public var `where`: String
    /// How the value appeared: `plain`, `url`, `base64`, `hex`, `md5`, `sha1`, `sha256`, or a chain `gzip+base64`.
    public var encoding: String
    /// The matched value, masked: never the full secret.
    public var evidence: String
    /// Rule id, e.g. `device-id.idfa` or `profile.idfa`.
    public var rule: String
    /// `http`, `https` or `tls-metadata`.
    public var transport: String

    // Additions beyond the spec's required fields.
    /// Id of the flow within its session (or input), when known.
    public var flow: Int?
    /// 0...1: how sure the detector is (a known device value is 1.0; a pattern under a weak key is lower).
    public var confidence: Double?
    public var severity: Severity?
    /// One sentence a non-engineer can read.
    public var description: String?
    /// ISO 8601 time of the request.
    public var time: String?
    /// Path inside an encoded blob, e.g. `$.properties.$ios_ifa` inside a base64 query value.
    public var inner: String?
}

extension Finding {
    /// The synthesized memberwise initializer, for other modules (it is internal). It lives in an
    /// extension, and takes an unused last parameter, so that it does not replace the synthesized one.
    public init(category: FindingCategory, type: String, request: FindingRequest, destination: FindingDestination,
                where: String, encoding: String, evidence: String, rule: String, transport: String,
                flow: Int? = nil, confidence: Double? = nil, severity: Severity? = nil, description: String? = nil,
                time: String? = nil, inner: String? = nil, _: Void = ()) {
        self.init(category: category, type: type, request: request, destination: destination, where: `where`,
                  encoding: encoding, evidence: evidence, rule: rule, transport: transport, flow: flow,
                  confidence: confidence, severity: severity, description: description, time: time, inner: inner)
    }
}

/// The request a finding was seen in: method and absolute URL as sent.
public struct FindingRequest: Sendable, Hashable, Codable {
    public var method: String
    public var url: String
    public init(method: String, url: String) { self.method = method; self.url = url }
}

/// Where the data went: host, the company behind it when known, and whether it is a third party.
public struct FindingDestination: Sendable, Hashable, Codable {
    public var host: String
    /// Company name from Rules/trackers.json, nil when the host is unknown.
    public var tracker: String?
    /// Tracker category: `advertising`, `analytics`, `attribution`, `crash-reporting`, `push`, `social`...
    public var trackerCategory: String?
    public var thirdParty: Bool
    /// The tracker's company family (short name of its top owner: `AppLovin` for the brand Adjust).
    public var owner: String? = nil

    enum CodingKeys: String, CodingKey {
        case host, tracker
        case trackerCategory = "tracker_category"
        case thirdParty = "third_party"
        case owner
    }
}

extension FindingDestination {
    /// The same as the memberwise initializer, for other modules; in an extension, with an unused
    /// last parameter, for the reason `Finding`'s is.
    public init(host: String, tracker: String? = nil, trackerCategory: String? = nil, thirdParty: Bool, owner: String? = nil,
                _: Void = ()) {
        self.init(host: host, tracker: tracker, trackerCategory: trackerCategory, thirdParty: thirdParty, owner: owner)
    }
}
