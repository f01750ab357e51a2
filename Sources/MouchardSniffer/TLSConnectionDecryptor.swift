import MouchardCodec
import MouchardWire

/// Decrypts one TLS connection seen in a capture, sans I/O: the reassembled bytes of each
/// direction go in (`feed`), events come out: the negotiation (version, suite, ALPN) once keys
/// are found, then each direction's decrypted application bytes, in order.
///
/// The handshake is followed in the clear up to the ServerHello (client random, suite, version);
/// secrets are then looked up in the key store by client random. TLS 1.3: each direction walks its
/// key epochs (early data, handshake, application 0, 1... after KeyUpdate), moving on at
/// EndOfEarlyData, Finished and KeyUpdate seen in the decrypted handshake, and, when a record does
/// not open under the current key, trying the next epochs (0-RTT rejected, a key log without the
/// handshake secrets). TLS 1.2: key block from the master secret and both randoms (PRF),
/// protection starting at each side's ChangeCipherSpec; a session resumed by id reuses the master
/// secret an earlier connection of the capture had.
///
/// Records that arrive before the keys are known are held (bounded), so a key that comes later
/// (a secrets block further on in the file, a line appended to the key log while sniffing) still
/// opens them.
final class TLSConnectionDecryptor {
    /// What the handshake chose.
    struct Negotiation: Sendable, Hashable {
        var version: UInt16
        var suite: String
        /// The ALPN protocol (`h2`, `http/1.1`), nil when none was negotiated.
        var alpn: String?
    }

    enum Event {
        /// Keys found (TLS 1.3: after EncryptedExtensions, which carries the ALPN).
        case established(Negotiation)
        /// Decrypted application data of direction `direction`, in stream order.
        case plaintext(direction: Int, bytes: [UInt8], time: Double)
        /// The rest of a direction cannot be decrypted (gap, malformed record): why.
        case lost(direction: Int, reason: String)
        /// `count` bytes of application data of direction `direction` were passed over without
        /// being decrypted, because the reader said it would drop them (`discardable`). Consecutive
        /// records passed over come as one event (see `flushSkipped`).
        case skipped(direction: Int, count: Int, time: Double)
    }

    /// Counters for the extraction statistics.
    struct Counters {
        var decryptedRecords = 0
        var authenticationFailures = 0
        var truncatedRecords = 0
        var malformedRecords = 0
        /// Application data records passed over unopened (their bytes were not wanted).
        var skippedRecords = 0
    }

    let clientDirection: Int
    /// When set, events go to it as they happen instead of being returned by `feed`, `gap` and
    /// `retry`: what the reader does with one may change what it asks `discardable` next.
    var sink: ((Event) -> Void)?
    /// Asked before an application data record of direction `d` is opened: how many of the next
    /// plaintext bytes the reader would drop anyway (an HTTP body past its capture cap). A record
    /// whose content fits is passed over unopened (`skipped`): not decrypted, not authenticated.
    var discardable: ((_ direction: Int) -> Int)?
    /// What `discardable` said for each direction, less what was passed over since (nil: ask).
    private var discardableKnown: [Int?] = [nil, nil]
    /// Records passed over and not told yet, per direction: their bytes and the last one's time.
    /// A large body passes over thousands of records in a row; the reader learns of them in one
    /// `skipped` event, before the direction's next event (or at `flushSkipped`, `finish`). Its
    /// parser state may lag by these bytes meanwhile: `discardableKnown` already accounts for them.
    private var skippedRun: [(count: Int, time: Double)?] = [nil, nil]

    private func discardableBytes(_ d: Int) -> Int {
        if let known = discardableKnown[d] { return known }
        let asked = discardable?(d) ?? 0
        discardableKnown[d] = asked
        return asked
    }
    private let keys: TLSKeyStore
    private(set) var clientHello: TLSClientHello?
    private(set) var serverHello: TLSServerHello?
    private(set) var suite: TLSCipherSuite?
    private(set) var negotiation: Negotiation?
    /// Why this connection is not (or no longer) decrypted; nil while all is well.
    private(set) var failure: String?
    private(set) var counters = Counters()
    private(set) var established = false

    private var readers = [TLSRecordSplitter(), TLSRecordSplitter()]
    private var handshakes = [TLSHandshakeReassembler(), TLSHandshakeReassembler()]
    /// Records not processed yet, per direction (waiting for the ServerHello or for keys).
    private var pending: [[TLSRecord]] = [[], []]
    private var pendingBytes = 0
    private var lostDirection = [false, false]
    /// Keys found (or definitively missing) for this connection.
    private var keysResolved = false
    private var keysGeneration = -1
    /// TLS 1.3: per direction, the traffic secrets in order and the current one.
    private var epochs: [[Epoch]] = [[], []]
    private var epochIndex = [0, 0]
    /// TLS 1.2: per direction, the protection that takes effect at its ChangeCipherSpec.
    private var tls12Protection: [TLSRecordProtection?] = [nil, nil]
    private var protection: [TLSRecordProtection?] = [nil, nil]
    private var changeCipherSpecSeen = [false, false]
    private var events: [Event] = []
    /// Data events decrypted before `established` (see `emitData`).
    private var heldData: [Event] = []
    private var heldBytes = 0

    /// Records held while waiting for keys, across both directions.
    static let maxPendingBytes = 4 << 20
    /// How many epochs past the current one a record that fails to open may belong to.
    static let epochLookahead = 2

    private struct Epoch {
        enum Kind { case early, handshake, application }
        var kind: Kind
        var secret: [UInt8]
    }

    init(clientDirection: Int, keys: TLSKeyStore) {
        self.clientDirection = clientDirection
        self.keys = keys
    }

    private var serverDirection: Int { 1 - clientDirection }

    // MARK: - Input

    /// Reassembled bytes of direction `d`; returns the events they caused.
    func feed(direction d: Int, bytes: ArraySlice<UInt8>, time: Double) -> [Event] {
        guard !lostDirection[d] else { return [] }
        readers[d].append(bytes)
        while true {
            switch readers[d].next() {
            case .record(let record):
                process(record, direction: d, time: time)
            case .needMore:
                return takeEvents()
            case .malformed(let reason):
                counters.malformedRecords += 1
                lose(d, reason: "malformed TLS record: \(reason)")
                return takeEvents()
            }
        }
    }

    /// A hole in direction `d`'s stream: record framing and sequence numbers are lost for the rest of it.
    func gap(direction d: Int, length: Int) -> [Event] {
        if !lostDirection[d] { lose(d, reason: "capture gap of \(length) bytes in the TLS stream") }
        return takeEvents()
    }

    /// Looks again for keys that were missing (the key store gained secrets).
    func retry(time: Double) -> [Event] {
        if keysResolved, !established, !heldData.isEmpty {
            // Keys, and records they opened, but no EncryptedExtensions (lost or damaged): the data
            // goes out without the ALPN.
            announce()
            return takeEvents()
        }
        guard !keysResolved, serverHello != nil, keys.generation != keysGeneration else { return [] }
        resolveKeys()
        for d in 0..<2 { drain(d, time: time) }
        return takeEvents()
    }

    /// Tells the reader of the records of direction `d` passed over and not told yet (call before
    /// the direction ends, so that its parser has counted every byte); returns the events.
    func flushSkipped(direction d: Int) -> [Event] {
        flushSkippedRun(d)
        return takeEvents()
    }

    /// The connection ended: records passed over are told, records cut short are counted, and a
    /// connection whose keys never came gets its reason. Returns the last events.
    @discardableResult
    func finish() -> [Event] {
        for d in 0..<2 { flushSkippedRun(d) }
        defer { events.removeAll(keepingCapacity: true) }
        for d in 0..<2 where readers[d].bufferedCount > 0 && !lostDirection[d] { counters.truncatedRecords += 1 }
        guard failure == nil else { return events }
        if serverHello == nil {
            if clientHello != nil { failure = "no ServerHello seen (the handshake did not complete in the capture)" }
        } else if !keysResolved {
            failure = "no key for client random \(shortHex(clientHello?.random ?? []))"
        }
        return events
    }

    private func emit(_ event: Event) {
        if let sink { sink(event) } else { events.append(event) }
    }

    /// Application data (or a pass over it) before the negotiation is announced waits for it: in
    /// capture order one side's records may be read before the other's handshake (a reassembler
    /// flushed at the end), and the reader learns from `established` what protocol they speak.
    private func emitData(_ event: Event) {
        if case .plaintext(let d, _, _) = event { flushSkippedRun(d) }
        guard !established else { return emit(event) }
        heldData.append(event)
        if case .plaintext(_, let bytes, _) = event { heldBytes += bytes.count }
        // Bounded like the records that wait for keys: past it, the data goes out without the ALPN.
        if heldBytes > TLSConnectionDecryptor.maxPendingBytes, negotiation != nil { announce() }
    }

    /// Passes the run of records passed over in direction `d` to the reader, as one event.
    private func flushSkippedRun(_ d: Int) {
        guard let run = skippedRun[d] else { return }
        skippedRun[d] = nil
        emitData(.skipped(direction: d, count: run.count, time: run.time))
    }

    private func takeEvents() -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    private func lose(_ d: Int, reason: String) {
        flushSkippedRun(d)
        lostDirection[d] = true
        pendingBytes -= pending[d].reduce(0) { $0 + $1.fragment.count }
        pending[d] = []
        if established {
            emit(.lost(direction: d, reason: reason))
        } else if failure == nil {
            failure = reason
        }
    }

    private func fail(_ reason: String) {
        if failure == nil { failure = reason }
        for d in 0..<2 where !lostDirection[d] { lose(d, reason: reason) }
    }

    // MARK: - Records

    private func process(_ record: TLSRecord, direction d: Int, time: Double) {
        if !pending[d].isEmpty || mustWait(record, direction: d) {
            hold(record, direction: d)
            if keys.generation != keysGeneration && serverHello != nil && !keysResolved {
                resolveKeys()
                drain(d, time: time)
            }
            return
        }
        handle(record, direction: d, time: time)
    }

    /// An encrypted record whose keys are not known yet (no ServerHello, or no secrets so far).
    private func mustWait(_ record: TLSRecord, direction d: Int) -> Bool {
        guard failure == nil else { return false }
        if suite?.isTLS13 == false || (suite == nil && record.type != TLSRecord.applicationData) {
            // TLS 1.2, or before the ServerHello: cleartext until ChangeCipherSpec.
            return changeCipherSpecSeen[d] && protection[d] == nil && !keysResolved
        }
        return record.type == TLSRecord.applicationData && !keysResolved
    }

    private func hold(_ record: TLSRecord, direction d: Int) {
        guard pendingBytes + record.fragment.count <= TLSConnectionDecryptor.maxPendingBytes else {
            fail("no key for client random \(shortHex(clientHello?.random ?? [])) (more than \(TLSConnectionDecryptor.maxPendingBytes >> 20) MiB of records waited for it)")
            return
        }
        pending[d].append(record)
        pendingBytes += record.fragment.count
    }

    private func drain(_ d: Int, time: Double) {
        while let first = pending[d].first, !mustWait(first, direction: d) || failure != nil {
            pending[d].removeFirst()
            pendingBytes -= first.fragment.count
            if failure == nil { handle(first, direction: d, time: time) }
        }
    }

    private func handle(_ record: TLSRecord, direction d: Int, time: Double) {
        if record.type == TLSRecord.changeCipherSpec {
            guard suite?.isTLS13 != true else { return }  // TLS 1.3 middlebox compatibility record
            changeCipherSpecSeen[d] = true
            protection[d] = tls12Protection[d]
            return
        }
        guard failure == nil || !lostDirection[d] else { return }
        if protection[d] == nil {
            if record.type == TLSRecord.handshake { handshakeBytes(record.fragment, direction: d, encrypted: false, time: time) }
            // Cleartext alerts and anything before keys: nothing to decrypt.
            return
        }
        if record.type == TLSRecord.applicationData, discardable != nil, let p = protection[d],
           let length = p.applicationDataLength(header: record.header, fragment: record.fragment), length > 0,
           length <= discardableBytes(d) {
            protection[d]?.skip()
            counters.skippedRecords += 1
            // Passing over bytes lowers what the reader would drop by as many: no need to ask again.
            discardableKnown[d] = discardableBytes(d) - length
            skippedRun[d] = (count: (skippedRun[d]?.count ?? 0) + length, time: time)
            return
        }
        guard let (type, plaintext) = open(record, direction: d) else {
            counters.authenticationFailures += 1
            return
        }
        counters.decryptedRecords += 1
        switch type {
        case TLSRecord.handshake: handshakeBytes(plaintext[...], direction: d, encrypted: true, time: time)
        case TLSRecord.applicationData:
            if !plaintext.isEmpty {
                discardableKnown[d] = nil  // the reader's state moves with what it reads: ask again
                emitData(.plaintext(direction: d, bytes: plaintext, time: time))
            }
        default: break  // alerts
        }
    }

    /// Opens a record under the direction's current key; TLS 1.3 then tries the next epochs.
    private func open(_ record: TLSRecord, direction d: Int) -> (UInt8, [UInt8])? {
        if var p = protection[d] {
            let opened = p.open(header: record.header, fragment: record.fragment)
            protection[d] = p  // the sequence number advances either way
            if let opened { return opened }
        }
        guard suite?.isTLS13 == true else { return nil }
        let current = epochIndex[d]
        for next in (current + 1)..<min(epochs[d].count, current + 1 + TLSConnectionDecryptor.epochLookahead) {
            guard let s = suite, var p = TLSRecordProtection(suite: s, trafficSecret: epochs[d][next].secret) else { continue }
            if let opened = p.open(header: record.header, fragment: record.fragment) {
                epochIndex[d] = next
                protection[d] = p
                return opened
            }
        }
        return nil
    }

    // MARK: - Handshake

    private func handshakeBytes(_ bytes: ArraySlice<UInt8>, direction d: Int, encrypted: Bool, time: Double) {
        handshakes[d].append(bytes)
        while let message = handshakes[d].next() {
            handshakeMessage(type: message.type, body: message.body, direction: d, encrypted: encrypted, time: time)
        }
    }

    private enum HandshakeType {
        static let clientHello: UInt8 = 1
        static let serverHello: UInt8 = 2
        static let endOfEarlyData: UInt8 = 5
        static let encryptedExtensions: UInt8 = 8
        static let finished: UInt8 = 20
        static let keyUpdate: UInt8 = 24
    }

    private func handshakeMessage(type: UInt8, body: ArraySlice<UInt8>, direction d: Int, encrypted: Bool, time: Double) {
        switch type {
        case HandshakeType.clientHello where !encrypted && d == clientDirection:
            // After a HelloRetryRequest the second ClientHello keeps the same random.
            if clientHello == nil {
                var whole: [UInt8] = [type, UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)]
                whole += body
                clientHello = TLSClientHello.parse(handshakeMessage: whole[...])
                if clientHello == nil { fail("malformed ClientHello") }
            }
        case HandshakeType.serverHello where !encrypted && d == serverDirection:
            guard serverHello == nil else { return }
            let hello: TLSServerHello
            do { hello = try TLSServerHello.parse(body: body) } catch {
                fail("malformed ServerHello (\(error))")
                return
            }
            if hello.isHelloRetryRequest { return }
            serverHello = hello
            guard let s = TLSCipherSuite.named(hello.cipherSuite) else {
                fail("unsupported cipher suite 0x\(hexString([UInt8(hello.cipherSuite >> 8), UInt8(hello.cipherSuite & 0xFF)])) (decrypted: TLS 1.3 and TLS 1.2 AEAD suites)")
                return
            }
            guard (hello.version == 0x0304) == s.isTLS13, hello.version >= 0x0303 else {
                fail("unsupported version \(TLSClientHello.versionName(hello.version)) with \(s.name)")
                return
            }
            suite = s
            negotiation = Negotiation(version: hello.version, suite: s.name, alpn: hello.alpn)
            resolveKeys()
            for o in 0..<2 { drain(o, time: time) }
        case HandshakeType.encryptedExtensions where encrypted && d == serverDirection:
            negotiation?.alpn = TLSServerHello.alpn(encryptedExtensions: body)
            announce()
        case HandshakeType.endOfEarlyData where encrypted && d == clientDirection:
            advance(d, to: .handshake)
        case HandshakeType.finished where encrypted && suite?.isTLS13 == true:
            advance(d, to: .application)
        case HandshakeType.keyUpdate where encrypted && suite?.isTLS13 == true:
            keyUpdate(d)
            // An update_requested KeyUpdate makes the peer send its own, which we see in its direction.
        default:
            break
        }
    }

    private func announce() {
        guard !established, let n = negotiation else { return }
        established = true
        emit(.established(n))
        let held = heldData
        heldData = []
        heldBytes = 0
        for e in held { emit(e) }
    }

    private func advance(_ d: Int, to kind: Epoch.Kind) {
        guard let next = epochs[d].indices.first(where: { $0 > epochIndex[d] && epochs[d][$0].kind == kind }),
              let s = suite else { return }
        epochIndex[d] = next
        protection[d] = TLSRecordProtection(suite: s, trafficSecret: epochs[d][next].secret)
    }

    /// TLS 1.3 KeyUpdate: the next application secret (RFC 8446 §7.2).
    private func keyUpdate(_ d: Int) {
        guard let s = suite, let current = epochs[d].last, current.kind == .application else { return }
        let next = TLSKeyDerivation.expandLabel(s.hash, secret: current.secret, label: "traffic upd", length: s.hash.length)
        epochs[d].append(Epoch(kind: .application, secret: next))
        epochIndex[d] = epochs[d].count - 1
        protection[d] = TLSRecordProtection(suite: s, trafficSecret: next)
    }

    // MARK: - Keys

    private func resolveKeys() {
        keysGeneration = keys.generation
        guard !keysResolved, failure == nil, let s = suite, let ch = clientHello, let sh = serverHello else { return }
        let secrets = keys.secrets(clientRandom: ch.random)
        if s.isTLS13 {
            guard let secrets else { return }
            var client: [Epoch] = []
            var server: [Epoch] = []
            if ch.offersEarlyData, let e = secrets[.clientEarlyTrafficSecret] { client.append(Epoch(kind: .early, secret: e)) }
            if let c = secrets[.clientHandshakeTrafficSecret] { client.append(Epoch(kind: .handshake, secret: c)) }
            if let h = secrets[.serverHandshakeTrafficSecret] { server.append(Epoch(kind: .handshake, secret: h)) }
            if let c = secrets[.clientTrafficSecret0] { client.append(Epoch(kind: .application, secret: c)) }
            if let h = secrets[.serverTrafficSecret0] { server.append(Epoch(kind: .application, secret: h)) }
            guard !client.isEmpty || !server.isEmpty else { return }
            for e in client + server where e.secret.count != s.hash.length {
                fail("key log secret of \(e.secret.count) bytes for \(s.name) (expected \(s.hash.length))")
                return
            }
            keysResolved = true
            epochs[clientDirection] = client
            epochs[serverDirection] = server
            for d in 0..<2 {
                epochIndex[d] = 0
                protection[d] = epochs[d].first.flatMap { TLSRecordProtection(suite: s, trafficSecret: $0.secret) }
            }
            if secrets[.serverHandshakeTrafficSecret] == nil { announce() }  // no EncryptedExtensions to wait for
            return
        }
        let resumed = !sh.sessionID.isEmpty && sh.sessionID == ch.sessionID
        guard let master = secrets?[.clientRandom] ?? (resumed ? keys.masterSecret(sessionID: sh.sessionID) : nil) else { return }
        keysResolved = true
        keys.remember(masterSecret: master, sessionID: sh.sessionID)
        let keyLength = s.algorithm.keyLength
        let ivLength = s.fixedIVLength
        let block = TLSKeyDerivation.prf(s.hash, secret: master, label: "key expansion", seed: sh.random + ch.random,
                                         length: 2 * keyLength + 2 * ivLength)
        let clientKey = Array(block[0..<keyLength])
        let serverKey = Array(block[keyLength..<(2 * keyLength)])
        let clientIV = Array(block[(2 * keyLength)..<(2 * keyLength + ivLength)])
        let serverIV = Array(block[(2 * keyLength + ivLength)...])
        tls12Protection[clientDirection] = TLSRecordProtection(suite: s, key: clientKey, iv: clientIV)
        tls12Protection[serverDirection] = TLSRecordProtection(suite: s, key: serverKey, iv: serverIV)
        for d in 0..<2 where changeCipherSpecSeen[d] { protection[d] = tls12Protection[d] }
        announce()
    }
}

func shortHex(_ bytes: [UInt8]) -> String {
    bytes.count > 8 ? hexString(bytes.prefix(8)) + "…" : hexString(bytes)
}
