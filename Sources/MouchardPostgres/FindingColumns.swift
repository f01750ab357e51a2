import MouchardFindings
import MouchardStore
import MouchardWire

/// The destination fields of a finding that the fleet store keeps as columns of `findings` beside its
/// JSON, for the fleet queries: company (the tracker brand), owner, tracker category, third party.
/// From a local session's row they are read out of the `destination` object of the stored JSON
/// (found by its key, parsed alone: the rest of the finding is not parsed).
enum FindingColumns {
    static let names = ["company", "owner", "tracker_category", "third_party"]

    static func values(_ f: Finding) -> [SQLValue] {
        [f.destination.tracker.map { .text($0) } ?? .null, f.destination.owner.map { .text($0) } ?? .null,
         f.destination.trackerCategory.map { .text($0) } ?? .null, .integer(f.destination.thirdParty ? 1 : 0)]
    }

    private static let key = Array("\"destination\":".utf8)

    /// The values from a finding's JSON text; NULLs where it holds no readable destination.
    static func values(json: String) -> [SQLValue] {
        var json = json
        return json.withUTF8 { values(utf8: $0) }
    }

    /// The same from the JSON's UTF-8, read in place (the uploader does this for every finding).
    private static func values(utf8 bytes: UnsafeBufferPointer<UInt8>) -> [SQLValue] {
        let none: [SQLValue] = [.null, .null, .null, .null]
        // The object handed to the parser as an Array: its generic parse is not specialized for
        // slices of a pointer, and went a third slower on them.
        guard let start = firstIndex(of: key, in: bytes), let object = objectExtent(bytes, from: start + key.count),
              let members = try? JSONParser().parse(Array(bytes[object])).members else { return none }
        func text(_ name: String) -> SQLValue {
            members.first { $0.key == name }?.value.stringValue.map { .text($0) } ?? .null
        }
        var party = SQLValue.null
        if case .bool(let b)? = members.first(where: { $0.key == "third_party" })?.value.kind { party = .integer(b ? 1 : 0) }
        return [text("tracker"), text("owner"), text("tracker_category"), party]
    }

    /// Where `needle` first stands in `bytes` outside a string. A key can only be matched at its
    /// place: inside a JSON string a quote is escaped, so `"destination":` cannot appear there.
    private static func firstIndex(of needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var i = 0
        while i + needle.count <= bytes.count {
            if bytes[i] == needle[0], bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// The range of the object starting at the first `{` from `index` (after spaces), strings skipped.
    private static func objectExtent(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> Range<Int>? {
        var i = index
        while i < bytes.count, bytes[i] == 0x20 { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
        let start = i
        var depth = 0
        var inString = false
        while i < bytes.count {
            let b = bytes[i]
            if inString {
                if b == UInt8(ascii: "\\") { i += 1 } else if b == UInt8(ascii: "\"") { inString = false }
            } else if b == UInt8(ascii: "\"") {
                inString = true
            } else if b == UInt8(ascii: "{") {
                depth += 1
            } else if b == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { return start..<(i + 1) }
            }
            i += 1
        }
        return nil
    }
}
