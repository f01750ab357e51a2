// Start-line grammar of RFC 9112 §3 and §4, shared by the request and response heads.

extension HTTPVersion {
    /// Parses exactly `HTTP/d.d` in `line[range]`; only major version 1 is accepted.
    static func parse(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, at offset: Int) throws(HTTPParseError) -> HTTPVersion {
        let s = range.lowerBound
        guard range.count == 8,
              line[s] == 0x48, line[s + 1] == 0x54, line[s + 2] == 0x54, line[s + 3] == 0x50, line[s + 4] == 0x2F,
              HTTPByteClass.isDigit(line[s + 5]), line[s + 6] == 0x2E, HTTPByteClass.isDigit(line[s + 7])
        else { throw HTTPParseError(.invalidVersion, at: offset) }
        let major = Int(line[s + 5] - 0x30)
        guard major == 1 else { throw HTTPParseError(.unsupportedVersion, at: offset) }
        return HTTPVersion(major: major, minor: Int(line[s + 7] - 0x30))
    }
}

extension HTTPRequestHead: HTTPParsableHead {
    /// request-line = method SP request-target SP HTTP-version, single spaces, no controls.
    static func parseStartLine(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>,
                               at offset: Int) throws(HTTPParseError) -> HTTPRequestHead {
        let s = range.lowerBound
        var m = s
        while m < range.upperBound, HTTPByteClass.isToken(line[m]) { m += 1 }
        guard m > s, m < range.upperBound, line[m] == 0x20 else {
            let code: HTTPParseError.Code = m < range.upperBound && line[m] != 0x20 || m == s ? .invalidMethod : .invalidStartLine
            throw HTTPParseError(code, at: offset + (m - s))
        }
        // The version is everything after the last space.
        var v = range.upperBound
        while v > m + 1, line[v - 1] != 0x20 { v -= 1 }
        guard v > m + 1 else { throw HTTPParseError(.invalidStartLine, at: offset + (range.upperBound - s)) }
        let targetRange = (m + 1)..<(v - 1)
        guard !targetRange.isEmpty else { throw HTTPParseError(.invalidRequestTarget, at: offset + (m + 1 - s)) }
        for k in targetRange {
            let b = line[k]
            guard b > 0x20, b != 0x7F else { throw HTTPParseError(.invalidRequestTarget, at: offset + (k - s)) }
        }
        let version = try HTTPVersion.parse(line, v..<range.upperBound, at: offset + (v - s))
        let method = String(decoding: UnsafeBufferPointer(rebasing: line[s..<m]), as: UTF8.self)
        let targetBytes = UnsafeBufferPointer(rebasing: line[targetRange])
        guard HTTPRequestTargetForm(target: targetBytes, method: method) != nil else {
            throw HTTPParseError(.invalidRequestTarget, at: offset + (m + 1 - s))
        }
        return HTTPRequestHead(method: method, target: targetBytes.fieldText, version: version)
    }

    /// Besides framing, rejects a request with several Host fields (RFC 9112 §3.2: which one a
    /// server or a proxy believes is ambiguous). A missing Host is accepted.
    /// The start of the line, then places where a common method name and a space begin.
    static func startLineCandidates(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [Int] {
        var out = [range.lowerBound]
        guard range.count > 14 else { return out }
        var k = range.lowerBound + 1
        while k < range.upperBound - 13, out.count < 8 {
            if line[k] &- 0x41 < 26 {
                for method in commonMethods where line.starts(with: method, at: k, before: range.upperBound) {
                    out.append(k)
                    break
                }
            }
            k += 1
        }
        return out
    }

    static let commonMethods: [StaticString] = ["GET ", "POST ", "PUT ", "HEAD ", "DELETE ", "OPTIONS ", "PATCH ", "CONNECT ", "TRACE "]

    static func outcome(of head: HTTPRequestHead, context: inout HTTPExchangeContext,
                        at offset: Int) throws(HTTPParseError) -> HTTPHeadOutcome {
        var hosts = 0
        for field in head.headers.fields where field.name.utf8.count == 4 && fieldName(field.name, is: "host") {
            hosts += 1
            if hosts > 1 { throw HTTPParseError(.multipleHostFields, at: offset) }
        }
        return .final(try HTTPBodyFraming(request: head, streamOffset: offset))
    }
}

extension HTTPResponseHead: HTTPParsableHead {
    /// status-line = HTTP-version SP status-code SP [ reason-phrase ]. A status line that ends right
    /// after the code (no space) is accepted too, as many servers send it.
    static func parseStartLine(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>,
                               at offset: Int) throws(HTTPParseError) -> HTTPResponseHead {
        let s = range.lowerBound
        guard range.count >= 8 else { throw HTTPParseError(.invalidVersion, at: offset) }
        let version = try HTTPVersion.parse(line, s..<s + 8, at: offset)
        guard range.count >= 12, line[s + 8] == 0x20 else { throw HTTPParseError(.invalidStartLine, at: offset + 8) }
        var status = 0
        for k in s + 9..<s + 12 {
            guard HTTPByteClass.isDigit(line[k]) else { throw HTTPParseError(.invalidStatusCode, at: offset + 9) }
            status = status * 10 + Int(line[k] - 0x30)
        }
        guard status >= 100 else { throw HTTPParseError(.invalidStatusCode, at: offset + 9) }
        var reason = ""
        if range.count > 12 {
            guard line[s + 12] == 0x20 else { throw HTTPParseError(.invalidStatusCode, at: offset + 9) }
            if let bad = line.firstInvalidFieldValueByte(in: s + 13..<range.upperBound) {
                throw HTTPParseError(.invalidReasonPhrase, at: offset + (bad - s))
            }
            reason = UnsafeBufferPointer(rebasing: line[s + 13..<range.upperBound]).fieldText
        }
        return HTTPResponseHead(version: version, status: status, reason: reason)
    }

    /// The start of the line, then each `HTTP/1.` inside it.
    static func startLineCandidates(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [Int] {
        var out = [range.lowerBound]
        var k = range.lowerBound + 1
        while k + 12 <= range.upperBound, out.count < 8 {
            if line[k] == 0x48, line.starts(with: "HTTP/1.", at: k, before: range.upperBound) { out.append(k) }
            k += 1
        }
        return out
    }

    static func outcome(of head: HTTPResponseHead, context: inout HTTPExchangeContext,
                        at offset: Int) throws(HTTPParseError) -> HTTPHeadOutcome {
        if head.status < 200, head.status != 101 { return .interim }
        let method = context.oldest ?? "GET"
        context.dequeue()
        return .final(try HTTPBodyFraming(response: head, requestMethod: method, streamOffset: offset))
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// True when the bytes at `index` (and before `end`) begin with `prefix`.
    func starts(with prefix: StaticString, at index: Int, before end: Int) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard index >= 0, index + n <= end else { return false }
        let p = prefix.utf8Start
        for k in 0..<n where self[index + k] != p[k] { return false }
        return true
    }
}
