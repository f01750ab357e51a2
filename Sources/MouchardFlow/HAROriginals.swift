import MouchardWire

/// The standard HAR fields that a `Flow` does not hold as written (HTTP/2 pseudo-headers, the
/// `httpVersion` text, cookies with their attributes, query strings as sent, sizes, MIME types,
/// comments...), kept so that `import` then `export` gives the file's entries back.
///
/// On import, the entry `HARWriter` would write for the flow is compared with the original, field
/// by field (`paths`); each field whose JSON differs is kept in `Flow.extras` under `=path` (its
/// original JSON text), or `-path` when the original has no such field. On export, `HARWriter`
/// puts them back in place. An entry Mouchard wrote itself usually needs none.
enum HAROriginals {
    /// The fields compared, as member paths inside an entry.
    static let paths: [[String]] = [
        ["startedDateTime"], ["time"], ["cache"], ["timings"], ["serverIPAddress"],
        ["request", "method"], ["request", "url"], ["request", "httpVersion"], ["request", "cookies"],
        ["request", "headers"], ["request", "queryString"], ["request", "postData", "mimeType"],
        ["request", "postData", "text"], ["request", "postData", "params"],
        ["request", "postData", "comment"], ["request", "postData", "encoding"], ["request", "headersSize"], ["request", "bodySize"], ["request", "comment"],
        ["response", "status"], ["response", "statusText"], ["response", "httpVersion"], ["response", "cookies"],
        ["response", "headers"], ["response", "content", "size"], ["response", "content", "compression"],
        ["response", "content", "mimeType"], ["response", "content", "comment"],
        ["response", "redirectURL"], ["response", "headersSize"], ["response", "bodySize"], ["response", "comment"],
    ]

    static let textPath = ["request", "postData", "text"]
    static let encodingPath = ["request", "postData", "encoding"]

    /// Extras key prefixes: the original value, or "absent in the original".
    static let keptPrefix = "="
    static let absentPrefix = "-"

    /// Records in `extras` the fields of `original` that `written` does not reproduce.
    static func record(original: JSONValue, written: JSONValue, into extras: inout [String: String]) {
        for path in paths {
            // The text's encoding is kept only with the text itself (the writer's pair is consistent).
            if path == encodingPath, extras[keptPrefix + textPath.joined(separator: ".")] == nil,
               extras[absentPrefix + textPath.joined(separator: ".")] == nil { continue }
            let o = value(at: path, in: original)
            let w = value(at: path, in: written)
            let key = path.joined(separator: ".")
            switch (o, w) {
            case (nil, nil): continue
            case (nil, .some): extras[absentPrefix + key] = ""
            case (.some(let o), let w):
                let text = JSONWriter.serialize(o, pretty: false)
                if let w, JSONWriter.serialize(w, pretty: false) == text { continue }
                // A parent already kept whole (e.g. an absent postData) covers its members.
                extras[keptPrefix + key] = String(decoding: text, as: UTF8.self)
            }
        }
    }

    /// Puts the kept originals of `extras` back into `entry`.
    static func apply(_ extras: [String: String], to entry: inout JSONValue) {
        for (key, text) in extras.sorted(by: { $0.key < $1.key }) {
            guard let first = key.first, String(first) == keptPrefix || String(first) == absentPrefix else { continue }
            let path = key.dropFirst().split(separator: ".").map(String.init)
            guard paths.contains(path) else { continue }
            if String(first) == absentPrefix {
                set(nil, at: path[...], in: &entry)
            } else if let v = try? JSONParser.har.parse(Array(text.utf8)) {
                set(v, at: path[...], in: &entry)
            }
        }
    }

    /// True when `key` is one of the kept originals (not a custom field to write back as is).
    static func isKept(_ key: String) -> Bool { key.hasPrefix(keptPrefix) || key.hasPrefix(absentPrefix) }

    static func value(at path: [String], in v: JSONValue) -> JSONValue? {
        var current = v
        for name in path {
            guard let m = current.members?.first(where: { $0.key == name }) else { return nil }
            current = m.value
        }
        return current
    }

    /// Sets (or, for nil, removes) the member at `path`, creating missing parent objects.
    static func set(_ value: JSONValue?, at path: ArraySlice<String>, in v: inout JSONValue) {
        guard let name = path.first, var members = v.members else { return }
        let index = members.firstIndex { $0.key == name }
        if path.count == 1 {
            switch (value, index) {
            case (let value?, let i?): members[i].value = value
            case (let value?, nil): members.append(JSONMember(key: name, keyOffset: 0, value: value))
            case (nil, let i?): members.remove(at: i)
            case (nil, nil): return
            }
        } else {
            if index == nil {
                guard value != nil else { return }
                members.append(JSONMember(key: name, keyOffset: 0, value: .object([])))
            }
            let i = index ?? members.count - 1
            set(value, at: path.dropFirst(), in: &members[i].value)
        }
        v.kind = .object(members)
    }
}
