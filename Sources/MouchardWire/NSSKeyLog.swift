/// The NSS key log format (`SSLKEYLOGFILE`, `openssl s_client -keylogfile`, Frida scripts, the
/// pcapng Decryption Secrets Block of type `TLSK`): one secret per line,
/// `LABEL <client random, 64 hex digits> <secret, hex>`, `#` comments and blank lines ignored.
///
/// Pure and forgiving: a bad line (unknown label, wrong field count, bad hex, a secret whose length
/// no TLS hash gives) is skipped and counted as a warning with its line number, never a crash.
public struct NSSKeyLog: Sendable {
    /// The secrets a line can carry (the labels of the format).
    public enum Label: String, Sendable, Hashable, CaseIterable {
        /// TLS 1.2 and below: the 48-byte master secret.
        case clientRandom = "CLIENT_RANDOM"
        case clientEarlyTrafficSecret = "CLIENT_EARLY_TRAFFIC_SECRET"
        case clientHandshakeTrafficSecret = "CLIENT_HANDSHAKE_TRAFFIC_SECRET"
        case serverHandshakeTrafficSecret = "SERVER_HANDSHAKE_TRAFFIC_SECRET"
        case clientTrafficSecret0 = "CLIENT_TRAFFIC_SECRET_0"
        case serverTrafficSecret0 = "SERVER_TRAFFIC_SECRET_0"
        case exporterSecret = "EXPORTER_SECRET"
        case earlyExporterSecret = "EARLY_EXPORTER_SECRET"

        /// Lengths a secret with this label may have: 48 for a master secret, a TLS 1.3 hash
        /// length (SHA-256: 32, SHA-384: 48) for the others.
        var allowedLengths: Set<Int> { self == .clientRandom ? [48] : [32, 48] }
    }

    /// One skipped line.
    public struct Warning: Sendable, Hashable, CustomStringConvertible {
        /// 1-based line number in the text given (for a stream, counted across `add` calls).
        public var line: Int
        public var reason: String
        public var description: String { "key log line \(line): \(reason)" }
    }

    /// The secrets of one TLS connection, found by its ClientHello random.
    public struct Secrets: Sendable, Hashable {
        public var values: [Label: [UInt8]] = [:]
        public subscript(_ label: Label) -> [UInt8]? { values[label] }
        public init() {}
    }

    public private(set) var byClientRandom: [[UInt8]: Secrets] = [:]
    public private(set) var warnings: [Warning] = []
    /// Warnings past `maxWarnings` are only counted.
    public private(set) var warningCount = 0
    /// Secret lines accepted.
    public private(set) var secretCount = 0
    private var lineNumber = 0
    /// Bytes of a line not ended yet (streamed input).
    private var pendingLine: [UInt8] = []

    public static let maxWarnings = 100
    /// A line longer than this is garbage (a real one is under 250 bytes).
    public static let maxLineLength = 1024
    static let clientRandomLength = 32

    public init() {}

    /// Parses a whole key log.
    public init<C: Collection>(text: C) where C.Element == UInt8 {
        add(text)
        finish()
    }

    public var isEmpty: Bool { byClientRandom.isEmpty }

    public func secrets(clientRandom: [UInt8]) -> Secrets? { byClientRandom[clientRandom] }

    /// Adds bytes of a key log, which may end in the middle of a line (a file that grows: the rest
    /// of the line comes with the next call).
    public mutating func add<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        for b in bytes {
            if b == 0x0A {
                lineNumber += 1
                parseLine(pendingLine)
                pendingLine.removeAll(keepingCapacity: true)
            } else if pendingLine.count <= NSSKeyLog.maxLineLength {
                pendingLine.append(b)
            }
        }
    }

    /// Ends the input: a last line without a newline is parsed.
    public mutating func finish() {
        guard !pendingLine.isEmpty else { return }
        lineNumber += 1
        parseLine(pendingLine)
        pendingLine.removeAll()
    }

    /// Adds every secret of `other` (a pcapng block, a second file); its warnings are not merged.
    public mutating func merge(_ other: NSSKeyLog) {
        for (random, secrets) in other.byClientRandom {
            for (label, value) in secrets.values { store(label, random: random, secret: value) }
        }
    }

    private mutating func warn(_ reason: String) {
        warningCount += 1
        if warnings.count < NSSKeyLog.maxWarnings { warnings.append(Warning(line: lineNumber, reason: reason)) }
    }

    private mutating func store(_ label: Label, random: [UInt8], secret: [UInt8]) {
        var s = byClientRandom[random] ?? Secrets()
        if s.values[label] == nil { secretCount += 1 }
        s.values[label] = secret
        byClientRandom[random] = s
    }

    private mutating func parseLine(_ raw: [UInt8]) {
        var line = raw[...]
        while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line = line.dropLast() }
        while let first = line.first, first == 0x20 || first == 0x09 { line = line.dropFirst() }
        if line.isEmpty || line.first == 0x23 { return }  // blank or # comment
        if raw.count > NSSKeyLog.maxLineLength {
            warn("line longer than \(NSSKeyLog.maxLineLength) bytes")
            return
        }
        let fields = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 })
        guard fields.count == 3 else {
            warn("expected LABEL CLIENT_RANDOM SECRET, found \(fields.count) fields")
            return
        }
        let name = String(decoding: fields[0], as: UTF8.self)
        guard let label = Label(rawValue: name) else {
            // Wireshark also reads RSA and PMK lines: those are not secrets we can use, say so.
            warn("unknown label '\(NSSKeyLog.printable(name))'")
            return
        }
        guard let random = NSSKeyLog.hexBytes(fields[1]), random.count == NSSKeyLog.clientRandomLength else {
            warn("\(name): the client random is not \(NSSKeyLog.clientRandomLength * 2) hex digits")
            return
        }
        guard let secret = NSSKeyLog.hexBytes(fields[2]) else {
            warn("\(name): the secret is not hex")
            return
        }
        guard label.allowedLengths.contains(secret.count) else {
            let expected = label.allowedLengths.sorted().map(String.init).joined(separator: " or ")
            warn("\(name): secret of \(secret.count) bytes (expected \(expected))")
            return
        }
        store(label, random: random, secret: secret)
    }

    /// Bytes of an even-length hex string, nil when it is not one.
    static func hexBytes(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 2 == 0, !text.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 2)
        var i = text.startIndex
        while i < text.endIndex {
            guard let hi = hexNibble(text[i]), let lo = hexNibble(text[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func printable(_ s: String) -> String {
        String(s.unicodeScalars.prefix(40).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
    }

    /// The key log text of `secrets` (NSS format, one line per secret, labels in a fixed order).
    public static func lines(clientRandom: [UInt8], secrets: Secrets) -> String {
        var out = ""
        for label in Label.allCases {
            guard let s = secrets[label] else { continue }
            out += "\(label.rawValue) \(hex(clientRandom)) \(hex(s))\n"
        }
        return out
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
