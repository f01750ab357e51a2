import Foundation

/// The known values of the test device (format: docs/device-profile.md): identifiers, the
/// owner's name, e-mails and phones, a GPS fix and planted contacts. With it, the inspector finds
/// these exact values whatever their encoding.
public struct DeviceProfile: Sendable, Hashable {
    public var name: String?
    public var platform: String?
    /// ISO 3166 region for national phone numbers (`FR`); nil = from the owner's first international phone.
    public var region: String?
    /// Identifier type (`udid`, `idfa`, `imei`, `mac`, ...) → its values.
    public var identifiers: [(type: String, value: String)]
    public var ownerName: String?
    public var ownerEmails: [String]
    public var ownerPhones: [String]
    public var location: Coordinate?
    public var contacts: [Contact]

    /// One planted address-book entry.
    public struct Contact: Sendable, Hashable {
        public var name: String?
        public var phones: [String]
        public var emails: [String]
        public init(name: String? = nil, phones: [String] = [], emails: [String] = []) {
            self.name = name
            self.phones = phones
            self.emails = emails
        }
    }

    public static let identifierTypes = ["udid", "idfa", "idfv", "android_id", "advertising_id", "app_set_id",
                                         "firebase_installation_id", "imei", "imeisv", "meid", "imsi", "iccid",
                                         "serial", "mac", "bluetooth_mac"]

    public init(name: String? = nil, platform: String? = nil, region: String? = nil,
                identifiers: [(type: String, value: String)] = [], ownerName: String? = nil,
                ownerEmails: [String] = [], ownerPhones: [String] = [], location: Coordinate? = nil,
                contacts: [Contact] = []) {
        self.name = name
        self.platform = platform
        self.region = region
        self.identifiers = identifiers
        self.ownerName = ownerName
        self.ownerEmails = ownerEmails
        self.ownerPhones = ownerPhones
        self.location = location
        self.contacts = contacts
    }

    public static func == (a: DeviceProfile, b: DeviceProfile) -> Bool {
        a.name == b.name && a.platform == b.platform && a.region == b.region
            && a.identifiers.map { "\($0.type)=\($0.value)" } == b.identifiers.map { "\($0.type)=\($0.value)" }
            && a.ownerName == b.ownerName && a.ownerEmails == b.ownerEmails && a.ownerPhones == b.ownerPhones
            && a.location == b.location && a.contacts == b.contacts
    }

    public func hash(into h: inout Hasher) {
        h.combine(name)
        for i in identifiers { h.combine(i.type); h.combine(i.value) }
        h.combine(ownerEmails)
        h.combine(ownerPhones)
    }

    /// Most contacts a profile may list (see `load`).
    public static let maximumContacts = 1000
    /// Most values in all (identifiers, e-mails, phones, names).
    public static let maximumValues = 5000
    /// Longest value accepted, in bytes.
    public static let maximumValueLength = 256
    /// Most bytes of all values together (about 400 MB of matcher tables at the limit).
    public static let maximumTotalBytes = 64 * 1024

    /// Parses a profile file's bytes; `file` names it in errors (`file:line:column: what`).
    public static func load(_ bytes: [UInt8], file: String) throws(ConfigFileError) -> DeviceProfile {
        let r = try ConfigFileReader(file: file, bytes: bytes)
        let top = try r.object(r.root, allowed: ["name", "platform", "region", "identifiers", "owner", "location", "contacts"],
                               what: "the device profile")
        var p = DeviceProfile()
        p.name = try r.string(top["name"])
        p.platform = try r.string(top["platform"])
        p.region = try r.string(top["region"])?.uppercased()
        if let ids = top["identifiers"] {
            let m = try r.object(ids.value, allowed: identifierTypes, what: "'identifiers'")
            for member in ids.value.members ?? [] {
                for v in try r.strings(m[member.key]) where !v.isEmpty { p.identifiers.append((member.key, v)) }
            }
        }
        if let owner = top["owner"] {
            let m = try r.object(owner.value, allowed: ["name", "email", "phone"], what: "'owner'")
            p.ownerName = try r.string(m["name"])
            p.ownerEmails = try r.strings(m["email"])
            p.ownerPhones = try r.strings(m["phone"])
        }
        if let loc = top["location"] {
            let m = try r.object(loc.value, allowed: ["latitude", "longitude"], what: "'location'")
            guard let lat = try r.number(m["latitude"]), let lon = try r.number(m["longitude"]) else {
                throw r.error(at: loc.value.offset, "'location' needs both 'latitude' and 'longitude'")
            }
            guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw r.error(at: loc.value.offset, "'location' is out of range (latitude -90...90, longitude -180...180)")
            }
            p.location = Coordinate(latitude: lat, longitude: lon)
        }
        let contacts = try r.array(top["contacts"])
        // Each value becomes dozens of variants in one automaton (about 0.3 MB of tables per
        // contact): a whole address book would take gigabytes. Planted test contacts are a handful.
        if contacts.count > Self.maximumContacts, let m = top["contacts"] {
            throw r.error(at: m.value.offset, "too many contacts (\(contacts.count); at most \(Self.maximumContacts): "
                          + "list the contacts planted for the audit, not the whole address book)")
        }
        for item in contacts {
            let m = try r.object(item, allowed: ["name", "phones", "emails"], what: "a contact")
            p.contacts.append(Contact(name: try r.string(m["name"]), phones: try r.strings(m["phones"]), emails: try r.strings(m["emails"])))
        }
        let values = p.identifiers.count + p.ownerEmails.count + p.ownerPhones.count
            + p.contacts.reduce(0) { $0 + $1.phones.count + $1.emails.count + ($1.name == nil ? 0 : 1) }
        if values > Self.maximumValues {
            throw r.error(at: r.root.offset, "too many values (\(values); at most \(Self.maximumValues) identifiers, e-mails, phones and names)")
        }
        let all = p.identifiers.map(\.1) + p.ownerEmails + p.ownerPhones + [p.ownerName].compactMap { $0 }
            + p.contacts.flatMap { $0.phones + $0.emails + [$0.name].compactMap { $0 } }
        if let long = all.first(where: { $0.utf8.count > Self.maximumValueLength }) {
            throw r.error(at: r.root.offset, "a value is \(long.utf8.count) bytes long (at most \(Self.maximumValueLength)): "
                          + "identifiers, e-mails, phones and names are short")
        }
        // What bounds the automaton: every byte of a value becomes some forty variant bytes.
        let total = all.reduce(0) { $0 + $1.utf8.count }
        if total > Self.maximumTotalBytes {
            throw r.error(at: r.root.offset, "the values add up to \(total) bytes (at most \(Self.maximumTotalBytes))")
        }
        if let region = p.region, PhoneNumbers.callingCode(region: region) == nil, let m = top["region"] {
            throw r.error(at: m.value.offset, "unknown region '\(region)' (expected an ISO 3166 code such as FR, US, DE)")
        }
        return p
    }

    /// The region national numbers are read in: `region`, else the country of the first
    /// international owner (then contact) phone, else nil.
    public var effectiveRegion: String? {
        if let region { return region }
        for phone in ownerPhones + contacts.flatMap(\.phones) {
            if let r = PhoneNumbers.regionOfInternational(phone) { return r }
        }
        return nil
    }
}

/// A point on Earth in decimal degrees.
public struct Coordinate: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public init(latitude: Double, longitude: Double) { self.latitude = latitude; self.longitude = longitude }

    /// Great-circle distance in metres (haversine).
    public func distance(to o: Coordinate) -> Double {
        let r = 6_371_000.0
        let p1 = latitude * .pi / 180, p2 = o.latitude * .pi / 180
        let dp = p2 - p1, dl = (o.longitude - longitude) * .pi / 180
        let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}
