import MouchardFlow
import MouchardWire

/// Path-and-query of a request, and (computed only for requests with findings) its host and
/// absolute URL, with byte-level code on the common origin-form target (`/path?q` + Host header);
/// other forms defer to `HTTPRequest`.
struct RequestFacts {
    var pathAndQuery: String

    /// `r` is borrowed: an initializer's parameter is otherwise taken owned, and the inspector had to
    /// copy the request (every field retained) to make the facts of it.
    init(_ r: borrowing HTTPRequest) {
        let target = r.head.target
        pathAndQuery = target.utf8.first == UInt8(ascii: "/") && r.method != "CONNECT" ? target : r.pathAndQuery
    }

    /// The host (lower case, no port) and the absolute URL of `r` (the request these facts are of).
    /// `hosts` remembers what each Host value says (an app sends a handful to most of its requests):
    /// its host is then read once, not made again for every request with findings.
    func located(_ r: HTTPRequest, hosts: HostReadingCache? = nil) -> (host: String, url: String) {
        let target = r.head.target
        guard target.utf8.first == UInt8(ascii: "/"), r.method != "CONNECT" else { return (r.host, r.url) }
        let scheme = r.scheme
        // Fields are read in place: `for f in fields` would copy each one (its name and value retained).
        let fields = r.head.headers.fields
        let hostIndex = fields.indices.first { fields[$0].name.utf8.count == 4 && asciiCaseInsensitiveEqualsHost(fields[$0].name) }
        if let hostIndex {
            // ASCII (every real Host) is read in place from the field's bytes: no text is made of it.
            let inPlace = fields[hostIndex].valueBytes.withUnsafeBufferPointer { bytes in
                !bytes.isEmpty && bytes.allSatisfy({ $0 < 0x80 }) ? located(authority: bytes, scheme: scheme, target: target, hosts: hosts) : nil
            }
            if let inPlace { return inPlace }
        }
        var authority = hostIndex.map { fields[$0].value } ?? ""
        if authority.isEmpty { authority = r.fallbackAuthority ?? "" }
        return authority.withUTF8 { located(authority: $0, scheme: scheme, target: target) }
    }

    /// The host and absolute URL for the Host value `a` (`host[:port]` or `[v6]:port`).
    private func located(authority a: UnsafeBufferPointer<UInt8>, scheme: String, target: String,
                         hosts: HostReadingCache? = nil) -> (host: String, url: String) {
        let reading = hosts?.answer(for: a) { HostReading($0) } ?? HostReading(a)
        let host = reading.host
        let port = UnsafeBufferPointer(rebasing: a[min(reading.portStart, a.count)...])
        let defaultPort = (scheme == "http" && Self.port(port, is: "80")) || (scheme == "https" && Self.port(port, is: "443"))
        let bracketed = reading.bracketed
        let showPort = !port.isEmpty && !defaultPort
        let count = scheme.utf8.count + 3 + host.utf8.count + (bracketed ? 2 : 0) + (showPort ? 1 + port.count : 0)
            + target.utf8.count
        let url = String(utf8Count: count) { w in
            w.write(scheme)
            w.write("://" as StaticString)
            if bracketed { w.write(UInt8(ascii: "[")) }
            w.write(host)
            if bracketed { w.write(UInt8(ascii: "]")) }
            if showPort {
                w.write(UInt8(ascii: ":"))
                w.write(port)
            }
            w.write(target)
        }
        return (host, url)
    }

    /// Whether the port digits `port` are `digits` (a plain loop: `elementsEqual` is a generic call).
    private static func port(_ port: UnsafeBufferPointer<UInt8>, is digits: StaticString) -> Bool {
        guard port.count == digits.utf8CodeUnitCount else { return false }
        for i in 0..<port.count where port[i] != digits.utf8Start[i] { return false }
        return true
    }
}

/// What one Host value (`host[:port]` or `[v6]:port`) says: the host, lower case, and where the
/// port's digits start. The same for every request that sends the value (see `HostReadingCache`).
struct HostReading: Sendable {
    var host: String
    /// Where the port's digits start in the value (its length: no port).
    var portStart: Int
    /// The host is an IPv6 literal (it holds a colon), written in brackets in a URL.
    var bracketed: Bool

    init(_ a: UnsafeBufferPointer<UInt8>) {
        var hostRange = 0..<a.count
        portStart = a.count
        if a.first == UInt8(ascii: "["), let close = a.firstIndex(of: UInt8(ascii: "]")) {
            hostRange = 1..<close
            if close + 1 < a.count, a[close + 1] == UInt8(ascii: ":") { portStart = close + 2 }
        } else if let colon = a.firstIndex(of: UInt8(ascii: ":")), a.lastIndex(of: UInt8(ascii: ":")) == colon {
            hostRange = 0..<colon
            portStart = colon + 1
        }
        let hostBytes = UnsafeBufferPointer(rebasing: a[hostRange])
        host = hostBytes.contains(where: { $0 >= 0x41 && $0 <= 0x5A })
            ? String(decoding: hostBytes.map { foldASCII($0) }, as: UTF8.self)
            : String(decoding: hostBytes, as: UTF8.self)
        bracketed = hostBytes.contains(UInt8(ascii: ":"))
    }
}

/// The readings of the Host values an inspector has met (see `HeaderValueCache`).
typealias HostReadingCache = HeaderValueCache<HostReading>

private func asciiCaseInsensitiveEqualsHost(_ name: String) -> Bool {
    // Native strings are read in place (one call per header of every request with findings).
    if let equal = name.utf8.withContiguousStorageIfAvailable({ b in
        b.count == 4 && b[0] | 0x20 == 0x68 && b[1] | 0x20 == 0x6F && b[2] | 0x20 == 0x73 && b[3] | 0x20 == 0x74
    }) { return equal }
    var it = name.utf8.makeIterator()
    for expected in "host".utf8 {
        guard let b = it.next(), foldASCII(b) == expected else { return false }
    }
    return it.next() == nil
}
