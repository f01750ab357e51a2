import Foundation
import MouchardCodec
import MouchardFlow
import MouchardMessages
import MouchardTestSupport
import MouchardWire
import Testing

let clientMask: (UInt8, UInt8, UInt8, UInt8) = (0x11, 0x22, 0x33, 0x44)

@Suite struct WebSocketConversationTests {
    @Test func extensionsHeader() {
        let e = WebSocketExtensions(header: "permessage-deflate; client_max_window_bits=15; server_no_context_takeover")
        #expect(e.deflate && e.serverNoContextTakeover && !e.clientNoContextTakeover && e.isReadable)
        #expect(WebSocketExtensions(header: nil) == WebSocketExtensions())
        #expect(!WebSocketExtensions(header: "x-webkit-deflate-frame").isReadable)
    }

    @Test func deflateWithContextTakeoverBothWays() throws {
        // Each side compresses with its own window kept across messages (RFC 7692 §7.2.3.2): a
        // repeated message then compresses to a few bytes that only the kept window can inflate.
        let talk = WebSocketConversation(extensions: WebSocketExtensions(header: "permessage-deflate"))
        let up = StreamDeflater(), down = StreamDeflater()
        let location = Array("{\"type\":\"position\",\"lat\":48.856614,\"lon\":2.352222}".utf8)
        let ack = Array("{\"ok\":true,\"echo\":\"position accepted\"}".utf8)
        var sizes: [Int] = []
        for round in 0..<3 {
            let c = up.compressMessage(location)
            sizes.append(c.count)
            let frame = WebSocketFrameWriter.frame(opcode: .text, payload: c, compressed: true, mask: clientMask)
            #expect(talk.receive(frame[...], from: .client, at: Date()).failure == nil)
            let s = WebSocketFrameWriter.frame(opcode: .text, payload: down.compressMessage(ack), compressed: true)
            // The server's message arrives in two pieces.
            #expect(talk.receive(s[..<3], from: .server, at: Date()).forward == 3)
            #expect(talk.receive(s[3...], from: .server, at: Date()).failure == nil)
            #expect(talk.pending.count == 2 * (round + 1))
        }
        #expect(sizes[1] < sizes[0] / 2)
        let (first, messages) = talk.takeMessages()
        #expect(first == 0)
        #expect(messages.map(\.data) == [location, ack, location, ack, location, ack])
        #expect(messages.map(\.direction) == [.client, .server, .client, .server, .client, .server])
        #expect(messages.allSatisfy { $0.compressed && !$0.truncated && $0.opcode == 1 })
        #expect(talk.takeMessages().firstIndex == 6)
    }

    @Test func noContextTakeoverAndFragmentedCompressedMessage() throws {
        let talk = WebSocketConversation(extensions: WebSocketExtensions(header: "permessage-deflate; client_no_context_takeover"))
        let payload = Array(String(repeating: "idfa=AEBE52E7-03EE-455A-B3C4-E57283966239;", count: 50).utf8)
        for _ in 0..<2 {
            let d = StreamDeflater()  // a sender that resets its window for every message
            let c = d.compressMessage(payload)
            let half = c.count / 2
            var stream = WebSocketFrameWriter.frame(opcode: .binary, payload: Array(c[..<half]), fin: false, compressed: true, mask: clientMask)
            stream += WebSocketFrameWriter.frame(opcode: .continuation, payload: Array(c[half...]), mask: clientMask)
            #expect(talk.receive(stream[...], from: .client, at: Date()).failure == nil)
        }
        #expect(talk.takeMessages().messages.map(\.data) == [payload, payload])
    }

    @Test func inflatedOutputIsBoundedAndTheWindowStaysRight() throws {
        // 8 MiB of zeros compress to a few KiB: only `maxMessageBytes` are kept, and the next message,
        // which leans on the window, still inflates.
        var limits = WebSocketConversation.Limits()
        limits.maxMessageBytes = 4096
        let talk = WebSocketConversation(extensions: WebSocketExtensions(header: "permessage-deflate"), limits: limits)
        let d = StreamDeflater()
        let bomb = d.compressMessage([UInt8](repeating: 0, count: 8 << 20))
        #expect(bomb.count < 64 << 10)
        _ = talk.receive(WebSocketFrameWriter.frame(opcode: .binary, payload: bomb, compressed: true)[...], from: .server, at: Date())
        let next = Array("after the bomb".utf8)
        _ = talk.receive(WebSocketFrameWriter.frame(opcode: .text, payload: d.compressMessage(next), compressed: true)[...],
                         from: .server, at: Date())
        let messages = talk.takeMessages().messages
        #expect(messages.count == 2)
        #expect(messages[0].data.count == 4096 && messages[0].truncated)
        #expect(messages[1].data == next && !messages[1].truncated)
    }

    @Test func protocolErrorStopsAtTheBadFrame() throws {
        let talk = WebSocketConversation(extensions: WebSocketExtensions())
        let good = WebSocketFrameWriter.frame(opcode: .text, payload: Array("hello".utf8), mask: clientMask)
        let bad: [UInt8] = [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]
        let verdict = talk.receive((good + bad)[...], from: .client, at: Date())
        #expect(verdict.forward == good.count)
        #expect(verdict.failure?.closeCode == WebSocketCloseCode.protocolError)
        #expect(talk.closing?.contains("protocol error") == true)
        #expect(talk.pending.map(\.data) == [Array("hello".utf8)])
    }

    @Test func flushLimitsAndCutMessages() throws {
        var limits = WebSocketConversation.Limits()
        limits.messagesPerFlow = 3
        let talk = WebSocketConversation(extensions: WebSocketExtensions(), limits: limits)
        for k in 0..<3 {
            #expect(!talk.wantsFlush)
            _ = talk.receive(WebSocketFrameWriter.frame(opcode: .text, payload: [UInt8(0x30 + k)])[...], from: .server, at: Date())
        }
        #expect(talk.wantsFlush)
        _ = talk.takeMessages()
        _ = talk.receive(WebSocketFrameWriter.frame(opcode: .text, payload: Array("partial".utf8), fin: false)[...], from: .server, at: Date())
        _ = talk.receive(WebSocketFrameWriter.close(code: 1000, reason: "bye", mask: clientMask)[...], from: .client, at: Date())
        talk.finish(at: Date())
        let (first, rest) = talk.takeMessages()
        #expect(first == 3)
        #expect(rest.count == 1 && rest[0].truncated && rest[0].data == Array("partial".utf8))
        #expect(talk.closing == "client 1000 bye")
    }

    @Test func mutatedConversationsNeverTrap() {
        let iterations = ByteMutator.iterations(default: 300, environment: ProcessInfo.processInfo.environment)
        var mutator = ByteMutator(seed: 0x574D_4443)
        let d = StreamDeflater()
        var sample: [UInt8] = []
        for k in 0..<4 {
            sample += WebSocketFrameWriter.frame(opcode: .text, payload: d.compressMessage(Array("{\"n\":\(k),\"lat\":48.85}".utf8)),
                                                 compressed: true, mask: clientMask)
        }
        for i in 0..<iterations {
            let talk = WebSocketConversation(extensions: WebSocketExtensions(header: "permessage-deflate"))
            let stream = mutator.mutate(sample)
            let cut = mutator.below(stream.count + 1)
            let a = talk.receive(stream[..<cut], from: .client, at: Date())
            if a.failure == nil { _ = talk.receive(stream[cut...], from: .client, at: Date()) }
            talk.finish(at: Date())
            let kept = talk.takeMessages().messages
            #expect(kept.allSatisfy { $0.data.count <= FlowMessage.captureLimit }, "seed \(mutator.seed) iteration \(i)")
        }
    }
}
