import MouchardWire

/// A problem in a configuration file (rule file, device profile): the file, the 1-based line and
/// column, and what is wrong. Its description is the one line the CLI prints.
public struct ConfigFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String
    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }
    public var description: String { "\(file):\(line):\(column): \(message)" }
}

/// Reads a strict JSON configuration: every object lists its allowed keys, unknown or duplicate
/// keys and wrong types are errors that point at the offending byte as `file:line:column`.
struct ConfigFileReader {
    let file: String
    let locator: TextLocator
    let root: JSONValue

    init(file: String, bytes: [UInt8]) throws(ConfigFileError) {
        self.file = file
        self.locator = TextLocator(bytes)
        do {
            self.root = try JSONParser().parse(bytes)
        } catch {
            let p = TextLocator(bytes).position(of: error.offset)
            throw ConfigFileError(file: file, line: p.line, column: p.column, message: "invalid JSON: \(error.message)")
        }
    }

    func error(at offset: Int, _ message: String) -> ConfigFileError {
        let p = locator.position(of: offset)
        return ConfigFileError(file: file, line: p.line, column: p.column, message: message)
    }

    /// The members of `value` by key, after checking it is an object with only `allowed` keys.
    func object(_ value: JSONValue, allowed: [String], what: String) throws(ConfigFileError) -> [String: JSONMember] {
        guard let members = value.members else { throw error(at: value.offset, "\(what) must be an object, not \(value.kindName)") }
        var out: [String: JSONMember] = [:]
        for m in members {
            guard allowed.contains(m.key) else {
                throw error(at: m.keyOffset, "unknown field '\(m.key)' in \(what) (allowed: \(allowed.joined(separator: ", ")))")
            }
            guard out[m.key] == nil else { throw error(at: m.keyOffset, "duplicate field '\(m.key)' in \(what)") }
            out[m.key] = m
        }
        return out
    }

    func string(_ m: JSONMember?) throws(ConfigFileError) -> String? {
        guard let m else { return nil }
        guard let s = m.value.stringValue else { throw error(at: m.value.offset, "'\(m.key)' must be a string, not \(m.value.kindName)") }
        return s
    }

    func requiredString(_ members: [String: JSONMember], _ key: String, in what: String, at offset: Int) throws(ConfigFileError) -> String {
        guard let s = try string(members[key]) else { throw error(at: offset, "\(what) is missing '\(key)'") }
        return s
    }

    func number(_ m: JSONMember?) throws(ConfigFileError) -> Double? {
        guard let m else { return nil }
        guard let d = m.value.doubleValue else { throw error(at: m.value.offset, "'\(m.key)' must be a number, not \(m.value.kindName)") }
        return d
    }

    func bool(_ m: JSONMember?) throws(ConfigFileError) -> Bool? {
        guard let m else { return nil }
        guard case .bool(let b) = m.value.kind else { throw error(at: m.value.offset, "'\(m.key)' must be true or false") }
        return b
    }

    /// A string or an array of strings (both accepted where a list is natural).
    func strings(_ m: JSONMember?) throws(ConfigFileError) -> [String] {
        guard let m else { return [] }
        if let s = m.value.stringValue { return [s] }
        guard let items = m.value.elements else {
            throw error(at: m.value.offset, "'\(m.key)' must be a string or an array of strings, not \(m.value.kindName)")
        }
        var out: [String] = []
        for item in items {
            guard let s = item.stringValue else { throw error(at: item.offset, "'\(m.key)' items must be strings, not \(item.kindName)") }
            out.append(s)
        }
        return out
    }

    func array(_ m: JSONMember?) throws(ConfigFileError) -> [JSONValue] {
        guard let m else { return [] }
        guard let items = m.value.elements else { throw error(at: m.value.offset, "'\(m.key)' must be an array, not \(m.value.kindName)") }
        return items
    }
}
