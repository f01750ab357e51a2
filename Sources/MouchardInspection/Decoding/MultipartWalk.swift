/// `multipart/form-data` (and other multipart types): each part a document named by its header.
extension FieldWalker {
    func boundaryParameter(_ contentType: String) -> String? {
        var text = contentType
        // ASCII text (every real header) is read as bytes: the same answer, without Foundation's
        // search and the walk over characters.
        if let ascii = text.withUTF8({ Self.asciiBoundaryParameter($0) }) { return ascii }
        guard let r = contentType.range(of: "boundary=") else { return nil }
        var b = contentType[r.upperBound...]
        if let semi = b.firstIndex(of: ";") { b = b[..<semi] }
        return b.trimmingCharacters(in: "\" ")
    }

    /// `boundaryParameter` of ASCII text: `.some(nil)` when it has none, nil when the text is not ASCII.
    static func asciiBoundaryParameter(_ p: UnsafeBufferPointer<UInt8>) -> String?? {
        guard p.allSatisfy({ $0 < 0x80 }) else { return nil }
        let needle: StaticString = "boundary="
        let m = needle.utf8CodeUnitCount
        guard p.count >= m else { return .some(nil) }
        var at: Int?
        for i in 0...(p.count - m) where (0..<m).allSatisfy({ p[i + $0] == needle.utf8Start[$0] }) {
            at = i
            break
        }
        guard let at else { return .some(nil) }
        var start = at + m
        var end = start
        while end < p.count, p[end] != UInt8(ascii: ";") { end += 1 }
        while start < end, p[start] == UInt8(ascii: "\"") || p[start] == UInt8(ascii: " ") { start += 1 }
        while end > start, p[end - 1] == UInt8(ascii: "\"") || p[end - 1] == UInt8(ascii: " ") { end -= 1 }
        return .some(String(decoding: UnsafeBufferPointer(rebasing: p[start..<end]), as: UTF8.self))
    }

    mutating func walkMultipart(_ bytes: ArraySlice<UInt8>, boundary: String, origin: FieldOrigin, depth: Int) {
        // The content type was lower-cased; find the boundary case-insensitively.
        let delimiter = Array(("--" + boundary).utf8)
        var starts: [Int] = []
        var i = bytes.startIndex
        while i + delimiter.count <= bytes.endIndex, starts.count < 1000 {
            // The delimiter starts with `-`: most positions are ruled out by their first byte.
            if bytes[i] != 0x2D { i += 1; continue }
            var ok = true
            for k in 0..<delimiter.count where foldASCII(bytes[i + k]) != foldASCII(delimiter[k]) { ok = false; break }
            if ok { starts.append(i); i += delimiter.count } else { i += 1 }
        }
        guard starts.count >= 2 else { leaf(bytes, origin, depth: depth); return }
        for (a, b) in zip(starts, starts.dropFirst()) {
            var part = bytes[(a + delimiter.count)..<b]
            // Headers end at the first blank line.
            guard let sep = findSubsequence(part, [13, 10, 13, 10]) ?? findSubsequence(part, [10, 10]) else { continue }
            let headerBytes = part[part.startIndex..<sep]
            let sepLength = part[sep] == 13 ? 4 : 2
            part = part[(sep + sepLength)...]
            if part.last == 10 { part = part.dropLast() }
            if part.last == 13 { part = part.dropLast() }
            let (name, partType) = partHeaders(headerBytes)
            var o = origin
            o.location = "multipart:" + name
            o.key = name
            walkDocument(part, contentType: DocumentType(lowercased: partType), origin: o, topLevel: false, depth: depth + 1)
        }
    }

    /// The name (from `Content-Disposition: ...; name="..."`, else `part`) and the lower-cased
    /// content type of a multipart part's header block. ASCII headers (all real ones) are read
    /// as bytes; others as text, lines split at every kind of newline.
    func partHeaders(_ bytes: ArraySlice<UInt8>) -> (name: String, type: String) {
        var name = "part"
        var partType = ""
        guard bytes.allSatisfy({ $0 < 0x80 && $0 != 0x0B && $0 != 0x0C }) else {
            let headerText = String(decoding: bytes, as: UTF8.self)
            for line in headerText.split(whereSeparator: \.isNewline) {
                let l = line.lowercased()
                if l.hasPrefix("content-disposition"), let r = line.range(of: "name=\"") {
                    let rest = line[r.upperBound...]
                    if let q = rest.firstIndex(of: "\"") { name = String(rest[..<q]) }
                } else if l.hasPrefix("content-type:") {
                    partType = String(l.dropFirst("content-type:".count)).trimmingASCIISpaces()
                }
            }
            return (name, partType)
        }
        func hasFoldedPrefix(_ line: ArraySlice<UInt8>, _ prefix: StaticString) -> Bool {
            let n = prefix.utf8CodeUnitCount
            guard line.count >= n else { return false }
            for k in 0..<n where foldASCII(line[line.startIndex + k]) != prefix.utf8Start[k] { return false }
            return true
        }
        // Lines end at CR or LF (a CRLF ends one line: empty pieces are skipped).
        var start = bytes.startIndex
        while start < bytes.endIndex {
            var end = start
            while end < bytes.endIndex, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            let line = bytes[start..<end]
            start = end + 1
            if line.isEmpty { continue }
            if hasFoldedPrefix(line, "content-disposition"), let r = findSubsequence(line, Array("name=\"".utf8)) {
                let rest = line[(r + 6)...]
                if let q = rest.firstIndex(of: 0x22) { name = String(decoding: rest[..<q], as: UTF8.self) }
            } else if hasFoldedPrefix(line, "content-type:") {
                partType = String(decoding: line.dropFirst(13).map(foldASCII), as: UTF8.self).trimmingASCIISpaces()
            }
        }
        return (name, partType)
    }
}
