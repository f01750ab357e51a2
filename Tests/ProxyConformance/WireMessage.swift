import Foundation

/// An HTTP/1 message as the other end of a conformance case saw it: start line, header fields in
/// order, body with the transfer coding removed, trailer fields, and how it was framed. Parsed
/// independently of Mouchard's own parser, so a case does not trust the code it checks.
public struct WireMessage: Sendable {
    public enum Framing: String, Sendable {
        case none, length, chunked, close
    }

    public var startLine: String
    public var fields: [(name: String, value: String)]
    public var body: [UInt8]
    public var trailers: [(name: String, value: String)]
    public var framing: Framing

    /// `GET`, `HTTP/1.1`... : the words of the start line.
    public var words: [String] { startLine.split(separator: " ", maxSplits: 2).map(String.init) }
    /// Request: the request-target; response: nil.
    public var target: String? { words.first?.hasPrefix("HTTP/") == false && words.count > 1 ? words[1] : nil }
    /// Response: the status code.
    public var status: Int? { words.first?.hasPrefix("HTTP/") == true && words.count > 1 ? Int(words[1]) : nil }
    /// `HTTP/1.1` for a response, the last word for a request.
    public var version: String? { words.first?.hasPrefix("HTTP/") == true ? words.first : words.last }
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Every value of the fields named `name` (case-insensitive), in order.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The comma-separated elements of every field named `name`.
    public func elements(_ name: String) -> [String] {
        values(name).flatMap { $0.split(separator: ",").map { $0.strippingSpaces() } }.filter { !$0.isEmpty }
    }

    public func trailerValues(_ name: String) -> [String] {
        trailers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    enum ParseResult {
        case needMore
        case message(WireMessage, consumed: Int)
    }

    /// One message from the start of `bytes`. `complete`: no more bytes will come (a body
    /// delimited by the close ends there).
    static func parse(_ bytes: [UInt8], responseTo method: String?, complete: Bool) throws -> ParseResult {
        guard let headEnd = find([13, 10, 13, 10], in: bytes, from: 0) else {
            if bytes.count > 65_536 { throw ConformanceError("a head of more than 64 KiB") }
            return .needMore
        }
        let lines = String(decoding: bytes[0..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        var message = WireMessage(startLine: lines[0], fields: [], body: [], trailers: [], framing: .none)
        message.fields = parseFields(lines.dropFirst())
        var position = headEnd + 4
        let isResponse = method != nil
        let status = message.status ?? 0
        let transferCodings = message.elements("Transfer-Encoding").map { $0.lowercased() }
        if isResponse && (method == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304) {
            message.framing = .none
        } else if isResponse && method == "CONNECT" && (200..<300).contains(status) {
            message.framing = .none
        } else if transferCodings.last == "chunked" {
            message.framing = .chunked
            while true {
                guard let lineEnd = find([13, 10], in: bytes, from: position) else { return .needMore }
                let sizeText = String(decoding: bytes[position..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.strippingSpaces(), radix: 16), size >= 0 else {
                    throw ConformanceError("bad chunk size line '\(printable(bytes[position..<lineEnd].prefix(40)))'")
                }
                position = lineEnd + 2
                if size == 0 {
                    // Trailer section: fields up to an empty line.
                    if bytes.count >= position + 2 && bytes[position] == 13 && bytes[position + 1] == 10 {
                        position += 2
                        break
                    }
                    guard let end = find([13, 10, 13, 10], in: bytes, from: position) else { return .needMore }
                    message.trailers = parseFields(String(decoding: bytes[position..<end], as: UTF8.self)
                        .components(separatedBy: "\r\n")[...])
                    position = end + 4
                    break
                }
                guard bytes.count >= position + size + 2 else { return .needMore }
                message.body.append(contentsOf: bytes[position..<(position + size)])
                position += size + 2
            }
        } else if let length = message.values("Content-Length").first.flatMap({ Int($0.split(separator: ",")[0].strippingSpaces()) }) {
            message.framing = .length
            guard bytes.count >= position + length else { return .needMore }
            message.body = Array(bytes[position..<(position + length)])
            position += length
        } else if isResponse {
            message.framing = .close
            guard complete else { return .needMore }
            message.body = Array(bytes[position...])
            position = bytes.count
        }
        return .message(message, consumed: position)
    }

    static func parseFields(_ lines: ArraySlice<String>) -> [(name: String, value: String)] {
        lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].strippingSpaces())
        }
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var i = start
        while i <= bytes.count - needle.count {
            if bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }

    /// Bytes as text with CR and LF shown, for failure messages.
    static func printable(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (the cases do not borrow Mouchard's helpers).
    func strippingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
