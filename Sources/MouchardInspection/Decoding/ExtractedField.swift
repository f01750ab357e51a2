/// Where a value sat in a request and how it had to be decoded to be read.
///
/// A value type whose five fields live in one copy-on-write box: an origin is copied into each
/// field the walk extracts, into each detection and finding, and a copy is then one retain
/// instead of one per string and array.
public struct FieldOrigin: Sendable, Hashable {
    /// `url`, `query:NAME`, `header:NAME`, `cookie:NAME`, `form:NAME`, `multipart:NAME`, `body`,
    /// `body:$.a.b[2]`, `body:pb.1.3`, `body:/plist/dict/key`.
    public var location: String { get { box.location } set { unique().location = newValue } }
    /// Path inside an encoded blob found at `location` (e.g. `$.properties.id` inside base64 JSON).
    public var inner: String? { get { box.inner } set { unique().inner = newValue } }
    /// Decodings undone to reach the value, outermost first (`url`, `base64`, `gzip`, `hex`, ...).
    public var decodings: [String] { get { box.decodings } set { unique().decodings = newValue } }
    /// The nearest key naming the value (query/form/JSON key, header name, protobuf field number).
    public var key: String { get { box.key } set { unique().key = newValue } }
    /// The key of the enclosing object, if any (helps hints like `location.lat`).
    public var parentKey: String { get { box.parentKey } set { unique().parentKey = newValue } }

    public init(location: String, inner: String? = nil, decodings: [String] = [], key: String = "", parentKey: String = "") {
        box = Box(location: location, inner: inner, decodings: decodings, key: key, parentKey: parentKey)
    }

    /// The fields. Never changed while shared (`unique()` copies first), hence `@unchecked Sendable`.
    private final class Box: @unchecked Sendable {
        var location: String
        var inner: String?
        var decodings: [String]
        var key: String
        var parentKey: String

        init(location: String, inner: String?, decodings: [String], key: String, parentKey: String) {
            self.location = location
            self.inner = inner
            self.decodings = decodings
            self.key = key
            self.parentKey = parentKey
        }
    }
    private var box: Box

    /// The box, copied first if another origin shares it.
    private mutating func unique() -> Box {
        if !isKnownUniquelyReferenced(&box) {
            box = Box(location: box.location, inner: box.inner, decodings: box.decodings, key: box.key, parentKey: box.parentKey)
        }
        return box
    }

    public static func == (a: FieldOrigin, b: FieldOrigin) -> Bool {
        if a.box === b.box { return true }
        return a.location == b.location && a.inner == b.inner && a.decodings == b.decodings && a.key == b.key
            && a.parentKey == b.parentKey
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(location)
        hasher.combine(inner)
        hasher.combine(decodings)
        hasher.combine(key)
        hasher.combine(parentKey)
    }

    /// The encoding chain in the order the transformations were applied (`base64+url`), with
    /// `first` (e.g. `md5`, the digest applied to the value itself) in front; `plain` when empty.
    public func encodingChain(first: String? = nil) -> String {
        // The common chains without building anything; the others written into one buffer (no array).
        let leading = first == "plain" ? nil : first
        let decodings = decodings
        if decodings.isEmpty { return leading ?? "plain" }
        if leading == nil, decodings.count == 1 { return decodings[0] }
        var count = leading.map { $0.utf8.count + 1 } ?? 0
        for d in decodings { count += d.utf8.count + 1 }
        return String(utf8Count: count - 1) { w in
            if let leading {
                w.write(leading)
                w.write(UInt8(ascii: "+"))
            }
            for (i, d) in decodings.reversed().enumerated() {
                if i > 0 { w.write(UInt8(ascii: "+")) }
                w.write(d)
            }
        }
    }
}

extension FieldOrigin {
    /// The request's query string, where the walk starts reading it: one box shared by every
    /// request (a walk that changes a copy gets its own box first, see `unique()`).
    static let query = FieldOrigin(location: "query")
    /// The request's body as sent (nothing decoded yet), shared as `query` is.
    static let body = FieldOrigin(location: "body")
}

/// A leaf value extracted from a request, as bytes, with its origin.
public struct ExtractedField: Sendable {
    /// The value's bytes (a slice of the request or of a decoded layer: no copy).
    public var bytes: ArraySlice<UInt8>
    public var origin: FieldOrigin
    /// True when the value was a number in its container (JSON number, protobuf varint).
    public var isNumber: Bool
}

/// Numbers that sat side by side in one container (a JSON object, a query string, the headers, one
/// string like `ll=47.1,2.3`): the candidates for a coordinate pair.
public struct NumberGroup: Sendable {
    /// One number with the key naming it and the decimals written.
    public struct Member: Sendable {
        public var key: String
        public var value: Double
        public var decimals: Int
    }
    /// How `where` is built for a pair (a, b): `prefix + "a,b"` when `inner` is nil, else
    /// `prefix` stays the location and `inner + "a,b"` is the inner path.
    public var prefix: String
    public var inner: String?
    public var decodings: [String]
    /// The key of the container itself (`pickup`, `location`, `ll`).
    public var containerKey: String
    public var members: [Member]
    /// True when the numbers came from one string (`47.1,2.3`), false for sibling fields.
    public var fromOneString: Bool
    /// True when the writing itself says the numbers are coordinates (hemisphere letters, degree
    /// signs, Exif GPS tags), whatever key holds them.
    public var marked: Bool = false
}

extension Array where Element == NumberGroup.Member {
    /// `append`, making room for four with the first: a container's numbers are a pair or a few
    /// more, and an array grown one by one is allocated again at 1, 2 and 4.
    mutating func appendMember(_ member: Element) {
        if isEmpty { reserveCapacity(4) }
        append(member)
    }
}
