import MouchardFlow
import MouchardWire

/// One way a replayed response differs from the recorded one.
public struct ResponseDifference: Sendable, Hashable, CustomStringConvertible {
    /// `status`, `header content-type`, `body`, `body $.user.id`.
    public var field: String
    public var recorded: String
    public var replayed: String

    public var description: String { "\(field): \(recorded) → \(replayed)" }
}

/// Compares a replayed response with the recorded one: status, headers (by name, values in order;
/// `Date` and the framing fields are not compared), body (JSON structurally, member by member;
/// other bodies by bytes). Ignored fields (`--ignore-field`) are left out.
public enum ResponseComparison {
    /// Never compared: they describe one transfer, not the response.
    public static let unstableHeaders: Set<String> = ["date", "content-length", "transfer-encoding", "connection", "keep-alive"]
    /// At most this many body paths are listed per response.
    public static let maxBodyDifferences = 20

    public static func differences(recorded: HTTPResponse, replayed: HTTPResponse,
                                   ignoring: [IgnoredField] = []) -> [ResponseDifference] {
        var out: [ResponseDifference] = []
        if recorded.status != replayed.status {
            out.append(ResponseDifference(field: "status", recorded: String(recorded.status), replayed: String(replayed.status)))
        }
        let ignoredHeaders = Set(ignoring.compactMap { if case .header(let n) = $0 { n } else { nil } })
        let a = grouped(recorded.headers), b = grouped(replayed.headers)
        for name in Set(a.keys).union(b.keys).sorted()
        where !unstableHeaders.contains(name) && !ignoredHeaders.contains(name) {
            let x = a[name] ?? [], y = b[name] ?? []
            if x != y {
                out.append(ResponseDifference(field: "header \(name)", recorded: x.isEmpty ? "(absent)" : x.joined(separator: ", "),
                                              replayed: y.isEmpty ? "(absent)" : y.joined(separator: ", ")))
            }
        }
        let bodyIgnores = ignoring.filter { if case .header = $0 { false } else { true } }
        if let x = CanonicalJSON.parse(recorded.body), let y = CanonicalJSON.parse(replayed.body) {
            var path: [String] = []
            var found: [ResponseDifference] = []
            compare(x, y, path: &path, ignoring: bodyIgnores, into: &found)
            out += found.prefix(maxBodyDifferences)
            if found.count > maxBodyDifferences {
                out.append(ResponseDifference(field: "body", recorded: "", replayed: "\(found.count - maxBodyDifferences) more differences"))
            }
        } else if recorded.body != replayed.body {
            out.append(ResponseDifference(field: "body", recorded: describe(recorded.body), replayed: describe(replayed.body)))
        }
        return out
    }

    static func grouped(_ headers: HTTPHeaders) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for f in headers.fields { out[f.name.lowercased(), default: []].append(f.value) }
        return out
    }

    static func describe(_ body: [UInt8]) -> String {
        if body.isEmpty { return "(empty)" }
        if body.count <= 40, let text = String(validating: body, as: UTF8.self), !text.contains(where: { $0.isNewline }) {
            return CanonicalJSON.quoted(text)
        }
        return "\(body.count) bytes"
    }

    static func compare(_ a: JSONValue, _ b: JSONValue, path: inout [String], ignoring: [IgnoredField],
                        into out: inout [ResponseDifference]) {
        guard out.count <= maxBodyDifferences else { return }
        if ignoring.contains(where: { $0.matches(jsonPath: path) }) { return }
        switch (a.kind, b.kind) {
        case (.object(let x), .object(let y)):
            var left: [String: JSONValue] = [:], right: [String: JSONValue] = [:]
            for m in x { left[m.key] = m.value }
            for m in y { right[m.key] = m.value }
            for key in Set(left.keys).union(right.keys).sorted() {
                path.append(key)
                defer { path.removeLast() }
                if ignoring.contains(where: { $0.matches(jsonPath: path) }) { continue }
                switch (left[key], right[key]) {
                case (let l?, let r?): compare(l, r, path: &path, ignoring: ignoring, into: &out)
                case (let l?, nil): out.append(ResponseDifference(field: "body " + shown(path), recorded: short(l), replayed: "(absent)"))
                case (nil, let r?): out.append(ResponseDifference(field: "body " + shown(path), recorded: "(absent)", replayed: short(r)))
                default: break
                }
            }
        case (.array(let x), .array(let y)):
            if x.count != y.count {
                out.append(ResponseDifference(field: "body " + shown(path) + ".length", recorded: String(x.count), replayed: String(y.count)))
            }
            for i in 0..<min(x.count, y.count) {
                path.append(String(i))
                compare(x[i], y[i], path: &path, ignoring: ignoring, into: &out)
                path.removeLast()
            }
        default:
            let l = CanonicalJSON.scalarText(a), r = CanonicalJSON.scalarText(b)
            if l != r { out.append(ResponseDifference(field: "body " + shown(path), recorded: short(a), replayed: short(b))) }
        }
    }

    static func shown(_ path: [String]) -> String {
        IgnoredField.path(path).description
    }

    static func short(_ v: JSONValue) -> String {
        let t = CanonicalJSON.scalarText(v)
        return t.count <= 60 ? t : String(t.prefix(57)) + "…"
    }
}
