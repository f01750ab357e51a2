import Foundation
import MouchardTestSupport

/// Runs Debian's `chromium` headless with JavaScript enabled on a local file and returns the DOM
/// after scripts ran (`--dump-dom`). Bounded: the browser is killed after `timeout` seconds.
enum HeadlessChromium {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func executable() throws -> String {
        guard let path = TestTool.chromium.path else { throw Failure(description: TestTool.chromium.skipReason) }
        return path
    }

    static func dumpDOM(of file: URL, timeout: TimeInterval = 120) throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable())
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--disable-background-networking", "--disable-sync", "--mute-audio",
            "--user-data-dir=\(profile.path)", "--virtual-time-budget=3000", "--dump-dom", file.absoluteString,
        ]
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("mouchard-dom-\(UUID().uuidString).html")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out) }
        let handle = try FileHandle(forWritingTo: out)
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw Failure(description: "chromium did not finish within \(Int(timeout)) s")
        }
        try handle.close()
        let dom = String(decoding: try Data(contentsOf: out), as: UTF8.self)
        guard process.terminationStatus == 0, !dom.isEmpty else {
            throw Failure(description: "chromium exited \(process.terminationStatus) with \(dom.utf8.count) bytes of DOM")
        }
        return dom
    }
}

/// The tags of a serialized DOM (as `--dump-dom` prints it): names and attributes, quoted values
/// honoured, text and raw-text content (style) skipped.
struct DOMTags {
    struct Tag: Equatable {
        var name: String
        var attributes: [(String, String)]
        static func == (a: Tag, b: Tag) -> Bool { a.name == b.name && a.attributes.map(\.0) == b.attributes.map(\.0) }
    }

    static func parse(_ html: String) -> [Tag] {
        let b = Array(html.utf8)
        var tags: [Tag] = []
        var i = 0
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D || c == 0x0C }
        while i < b.count {
            guard b[i] == UInt8(ascii: "<") else { i += 1; continue }
            i += 1
            guard i < b.count else { break }
            if b[i] == UInt8(ascii: "!") || b[i] == UInt8(ascii: "/") || b[i] == UInt8(ascii: "?") {
                while i < b.count, b[i] != UInt8(ascii: ">") { i += 1 }
                continue
            }
            var name = ""
            while i < b.count, !isSpace(b[i]), b[i] != UInt8(ascii: ">"), b[i] != UInt8(ascii: "/") {
                name.unicodeScalars.append(Unicode.Scalar(b[i])); i += 1
            }
            var attrs: [(String, String)] = []
            while i < b.count, b[i] != UInt8(ascii: ">") {
                if isSpace(b[i]) || b[i] == UInt8(ascii: "/") { i += 1; continue }
                var an: [UInt8] = []
                while i < b.count, !isSpace(b[i]), b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ">") { an.append(b[i]); i += 1 }
                var value: [UInt8] = []
                if i < b.count, b[i] == UInt8(ascii: "=") {
                    i += 1
                    if i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
                        let q = b[i]; i += 1
                        while i < b.count, b[i] != q { value.append(b[i]); i += 1 }
                        i += 1
                    } else {
                        while i < b.count, !isSpace(b[i]), b[i] != UInt8(ascii: ">") { value.append(b[i]); i += 1 }
                    }
                }
                attrs.append((String(decoding: an, as: UTF8.self).lowercased(), String(decoding: value, as: UTF8.self)))
            }
            i += 1
            let lower = name.lowercased()
            tags.append(Tag(name: lower, attributes: attrs))
            if lower == "style" || lower == "script" || lower == "title" || lower == "textarea" {
                // Raw text until the closing tag.
                let close = Array("</\(lower)".utf8)
                while i + close.count <= b.count {
                    if Array(b[i..<(i + close.count)]).map({ $0 | 0x20 }) == close.map({ $0 | 0x20 }) { break }
                    i += 1
                }
            }
        }
        return tags
    }
}
