import MouchardFlow

/// HTTP/2 in captures: cleartext h2 (prior knowledge, or after an h2c upgrade) and decrypted TLS
/// connections that chose h2 go through one `HTTP2CaptureDecoder` per connection; each stream is
/// one flow (HTTP/2.0, `:authority` as its authority, its stream id in `_streamId`).
extension PcapFlowExtractor {
    /// Both directions of `c` are HTTP/2 from now on; `initial`: client bytes already read (the preface).
    func startHTTP2(_ c: TCPConnection, clientDirection d: Int, initial: [UInt8], upgraded: HTTPStreamParser.Message?, time: Double) {
        do {
            c.http2 = try HTTP2CaptureDecoder(clientDirection: d, requestBodyLimit: limits.requestBodyBytes,
                                              responseBodyLimit: limits.responseBodyBytes, upgraded: upgraded)
        } catch {
            warn("\(c.endpoint(d)) → \(c.endpoint(1 - d)): HTTP/2 not decoded: \(error)")
            c.protocols = [.ignored, .ignored]
            return
        }
        c.requestDirection = d
        c.protocols = [.http2, .http2]
        statistics.http2Connections += 1
        if !initial.isEmpty { readHTTP2(initial[...], direction: d, connection: c, time: time) }
    }

    /// After `101 Switching Protocols` to h2c: the upgrade request is stream 1; bytes either HTTP/1
    /// parser read past the heads are the first HTTP/2 bytes.
    func startH2CUpgrade(request: HTTPStreamParser.Message, serverDirection d: Int, connection c: TCPConnection, time: Double) {
        var leftovers: [[UInt8]] = [[], []]
        for side in 0..<2 {
            if case .http(var parser) = c.protocols[side] {
                c.protocols[side] = .ignored
                leftovers[side] = parser.takeTunnelBytes()
            }
        }
        startHTTP2(c, clientDirection: 1 - d, initial: [], upgraded: request, time: time)
        for side in [d, 1 - d] where !leftovers[side].isEmpty {
            readHTTP2(leftovers[side][...], direction: side, connection: c, time: time)
        }
    }

    func readHTTP2(_ bytes: ArraySlice<UInt8>, direction d: Int, connection c: TCPConnection, time: Double) {
        guard let decoder = c.http2 else { return }
        for e in decoder.feed(direction: d, bytes: bytes, time: time) { emitHTTP2(e, connection: c) }
        if let failure = decoder.failure { stopHTTP2(c, reason: failure) }
    }

    /// Ends the decoding of `c` (gap, error or end): open streams go out incomplete.
    func stopHTTP2(_ c: TCPConnection, reason: String) {
        guard let decoder = c.http2 else { return }
        c.http2 = nil
        c.protocols = [.ignored, .ignored]
        if let failure = decoder.failure {
            statistics.http2Problems += 1
            warn("\(c.endpoint(decoder.clientDirection)) → \(c.endpoint(1 - decoder.clientDirection)): HTTP/2: \(failure)")
        }
        for e in decoder.finish(reason: reason) { emitHTTP2(e, connection: c) }
    }

    private func emitHTTP2(_ e: HTTP2CaptureDecoder.Exchange, connection c: TCPConnection) {
        statistics.httpRequests += 1
        if e.response != nil { statistics.httpResponses += 1 }
        c.sawHTTP = true
        if c.hostName == nil, let a = e.authority { c.hostName = URLParts.hostOnly(authority: a).lowercased() }
        guard var flow = httpFlow(request: e.request, response: e.response, connection: c, authority: e.authority) else { return }
        flow.extras["_streamId"] = String(e.streamID)
        publish(flow)
    }
}
