/// A DNS message (RFC 1035): questions and answer records, names decompressed with loop
/// protection. Authority and additional sections are not needed to name servers and are skipped.
public struct DNSMessage: Sendable, Hashable {
    public var id: UInt16
    public var isResponse: Bool
    /// RCODE: 0 no error, 3 NXDOMAIN...
    public var responseCode: Int
    public var questions: [Question]
    public var answers: [Record]

    /// One question: the name asked for (lower-case, no trailing dot) and the record type.
    public struct Question: Sendable, Hashable {
        public var name: String
        public var type: UInt16
    }

    /// One answer record: owner name, type, TTL and the data we understand.
    public struct Record: Sendable, Hashable {
        public var name: String
        public var type: UInt16
        public var ttl: UInt32
        public var data: RecordData
    }

    /// Record data for the types that name servers; anything else is kept as its type only.
    public enum RecordData: Sendable, Hashable {
        case address(IPAddress)
        case cname(String)
        case other
    }

    /// Why a DNS message could not be read, and at which byte of the message.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var reason: String
        public var offset: Int
        public var description: String { "DNS: \(reason) at byte \(offset)" }
    }

    /// Counts above these are treated as garbage rather than allocated.
    static let maxRecords = 512
    /// Compression pointers followed per name before we call it a loop.
    static let maxPointerJumps = 64

    public init(_ bytes: ArraySlice<UInt8>) throws(ParseError) {
        guard let id = bytes.be16(at: 0), let flags = bytes.be16(at: 2), let qd = bytes.be16(at: 4),
              let an = bytes.be16(at: 6) else { throw ParseError(reason: "header cut", offset: bytes.count) }
        guard Int(qd) + Int(an) <= DNSMessage.maxRecords else {
            throw ParseError(reason: "implausible record counts (\(qd) questions, \(an) answers)", offset: 4)
        }
        self.id = id
        self.isResponse = flags & 0x8000 != 0
        self.responseCode = Int(flags & 0x000F)
        var offset = 12
        var questions: [Question] = []
        for _ in 0..<qd {
            let name = try DNSMessage.readName(bytes, at: &offset)
            guard let type = bytes.be16(at: offset), bytes.be16(at: offset + 2) != nil else {
                throw ParseError(reason: "question cut", offset: offset)
            }
            offset += 4
            questions.append(Question(name: name, type: type))
        }
        var answers: [Record] = []
        for _ in 0..<an {
            let name = try DNSMessage.readName(bytes, at: &offset)
            guard let type = bytes.be16(at: offset), let ttl = bytes.be32(at: offset + 4),
                  let rdlength = bytes.be16(at: offset + 8) else { throw ParseError(reason: "record cut", offset: offset) }
            let rdStart = offset + 10
            guard let rdata = bytes.field(at: rdStart, length: Int(rdlength)) else {
                throw ParseError(reason: "record data cut (\(rdlength) bytes announced)", offset: rdStart)
            }
            var data = RecordData.other
            switch type {
            case 1 where rdlength == 4:
                if let a = IPAddress.read(rdata, at: 0, ipv6: false) { data = .address(a) }
            case 28 where rdlength == 16:
                if let a = IPAddress.read(rdata, at: 0, ipv6: true) { data = .address(a) }
            case 5:
                var o = rdStart
                data = .cname(try DNSMessage.readName(bytes, at: &o))
            default:
                break
            }
            answers.append(Record(name: name, type: type, ttl: ttl, data: data))
            offset = rdStart + Int(rdlength)
        }
        self.questions = questions
        self.answers = answers
    }

    /// Reads a possibly compressed name at `offset` (advanced past it in the message), lower-case,
    /// dot-separated, without the trailing dot. Pointers may only go backwards and are bounded,
    /// so a pointer loop is an error, never a hang.
    static func readName(_ bytes: ArraySlice<UInt8>, at offset: inout Int) throws(ParseError) -> String {
        var labels: [String] = []
        var position = offset
        var jumped = false
        var jumps = 0
        var total = 0
        while true {
            guard let len = bytes.u8(at: position) else { throw ParseError(reason: "name cut", offset: position) }
            if len & 0xC0 == 0xC0 {
                guard let low = bytes.u8(at: position + 1) else { throw ParseError(reason: "pointer cut", offset: position) }
                let target = Int(len & 0x3F) << 8 | Int(low)
                jumps += 1
                guard jumps <= maxPointerJumps, target < position else {
                    throw ParseError(reason: "compression pointer loop", offset: position)
                }
                if !jumped { offset = position + 2 }
                jumped = true
                position = target
                continue
            }
            guard len & 0xC0 == 0 else { throw ParseError(reason: "bad label type", offset: position) }
            if len == 0 {
                if !jumped { offset = position + 1 }
                break
            }
            guard let label = bytes.field(at: position + 1, length: Int(len)) else {
                throw ParseError(reason: "label cut", offset: position)
            }
            total += Int(len) + 1
            guard total <= 255 else { throw ParseError(reason: "name longer than 255 bytes", offset: position) }
            labels.append(decodeFieldText(label).lowercased())
            position += 1 + Int(len)
        }
        return labels.joined(separator: ".")
    }

    /// For the first question: the CNAME chain from its name and the addresses of the chain's names.
    public func resolution() -> (name: String, type: UInt16, cnames: [String], addresses: [IPAddress])? {
        guard let q = questions.first else { return nil }
        var chain = [q.name]
        var current = q.name
        // Follow CNAMEs in any order, at most as many steps as there are records.
        for _ in 0..<answers.count {
            guard let next = answers.first(where: { $0.name == current && $0.type == 5 }),
                  case .cname(let target) = next.data, !chain.contains(target) else { break }
            chain.append(target)
            current = target
        }
        let names = Set(chain)
        var addresses: [IPAddress] = []
        for r in answers where names.contains(r.name) {
            if case .address(let a) = r.data, !addresses.contains(a) { addresses.append(a) }
        }
        return (q.name, q.type, Array(chain.dropFirst()), addresses)
    }

    /// The mnemonic of a record type (`A`, `AAAA`, `HTTPS`...), or `TYPEnn`.
    public static func typeName(_ type: UInt16) -> String {
        switch type {
        case 1: return "A"
        case 2: return "NS"
        case 5: return "CNAME"
        case 6: return "SOA"
        case 12: return "PTR"
        case 15: return "MX"
        case 16: return "TXT"
        case 28: return "AAAA"
        case 33: return "SRV"
        case 64: return "SVCB"
        case 65: return "HTTPS"
        case 255: return "ANY"
        default: return "TYPE\(type)"
        }
    }
}
