import Foundation
import MouchardCapture
import MouchardFlow
import MouchardWire

/// Writes pcapng files that Wireshark opens decrypted as they are: the packets, preceded by a
/// Decryption Secrets Block with the TLS key log that opens them (`export --pcapng`).
///
/// - a recorded capture (the sniffer's or gateway's `traffic.pcap`, pcap or pcapng) is copied
///   packet by packet (streamed), with the session's key log;
/// - recorded exchanges without packets (proxy sessions) become synthesised connections
///   (`ExchangePacketSynthesizer`), whose secrets are generated for them. Packets go to a temporary
///   file first, since the secrets block must come before them and the secrets are only known
///   once every flow was seen.
public enum PcapngExport {
    public struct Summary: Sendable {
        public var packets = 0
        public var flows = 0
        public var skippedFlows = 0
        /// Bytes of key log in the secrets block (0: no block written).
        public var keyLogBytes = 0
        public var readError: CaptureFileError?
    }

    static let application = "mouchard"

    /// Copies the packets of `capturePath` into `output` after a secrets block holding `keyLog`.
    public static func copy(capturePath: String, keyLog: [UInt8], to output: String) throws -> Summary {
        let out = try Output(path: output)
        var summary = Summary()
        var interfaces: [UInt32: UInt32] = [:]
        do {
            try out.write(PcapngBlocks.sectionHeader(application: application))
            if !keyLog.isEmpty {
                try out.write(PcapngBlocks.decryptionSecrets(data: keyLog))
                summary.keyLogBytes = keyLog.count
            }
            // Secrets the capture itself carried stay with it.
            let carriedSecrets: (UInt32, ArraySlice<UInt8>) throws -> Void = { type, data in
                try out.write(PcapngBlocks.decryptionSecrets(secretsType: type, data: Array(data)))
            }
            let outcome = try CaptureFileReader(path: capturePath).forEachPacket(secrets: carriedSecrets) { packet in
                let link = packet.linkType.rawValue
                let interface: UInt32
                if let known = interfaces[link] {
                    interface = known
                } else {
                    interface = UInt32(interfaces.count)
                    interfaces[link] = interface
                    try out.write(PcapngBlocks.interfaceDescription(linkType: UInt16(truncatingIfNeeded: link)))
                }
                try out.write(PcapngBlocks.enhancedPacket(interface: interface, timestamp: packet.timestamp, data: packet.data,
                                                          originalLength: packet.originalLength))
                summary.packets += 1
            }
            summary.readError = outcome.error
            try out.commit()
        } catch {
            out.abandon()
            throw error
        }
        return summary
    }

    /// Synthesises packets for the flows `forEachFlow` gives, into `output`, with their secrets
    /// (and `extraKeyLog`, e.g. the session's own key log) in the secrets block.
    public static func synthesise(extraKeyLog: [UInt8] = [], to output: String,
                                  forEachFlow: ((Flow) throws -> Void) throws -> Void) throws -> Summary {
        let packetsPath = output + ".packets"
        let packetsOut = try Output(path: packetsPath)
        var synthesizer = ExchangePacketSynthesizer()
        var summary = Summary()
        do {
            try forEachFlow { flow in
                let packets = synthesizer.packets(for: flow)
                if !packets.isEmpty { summary.flows += 1 }
                for p in packets {
                    try packetsOut.write(PcapngBlocks.enhancedPacket(timestamp: p.timestamp, data: p.frame))
                    summary.packets += 1
                }
            }
            try packetsOut.commit()
        } catch {
            packetsOut.abandon()
            throw error
        }
        defer { try? FileManager.default.removeItem(atPath: packetsPath) }
        summary.skippedFlows = synthesizer.skippedFlows
        let keyLog = Array(synthesizer.keyLog.utf8) + extraKeyLog
        let out = try Output(path: output)
        do {
            try out.write(PcapngBlocks.sectionHeader(application: application))
            try out.write(PcapngBlocks.interfaceDescription(linkType: UInt16(LinkType.ethernet.rawValue)))
            if !keyLog.isEmpty {
                try out.write(PcapngBlocks.decryptionSecrets(data: keyLog))
                summary.keyLogBytes = keyLog.count
            }
            guard let input = FileHandle(forReadingAtPath: packetsPath) else {
                throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: packetsPath])
            }
            defer { try? input.close() }
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try out.write(chunk) }
            try out.commit()
        } catch {
            out.abandon()
            throw error
        }
        return summary
    }

    /// A file written under a temporary name and renamed into place when complete.
    final class Output {
        let path: String
        let temporary: String
        let handle: FileHandle
        private var buffer = Data()

        init(path: String) throws {
            self.path = path
            temporary = path + ".partial"
            guard FileManager.default.createFile(atPath: temporary, contents: nil),
                  let h = FileHandle(forWritingAtPath: temporary) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
            handle = h
        }

        func write(_ bytes: [UInt8]) throws {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 20 { try flush() }
        }

        func write(_ data: Data) throws {
            try flush()
            try handle.write(contentsOf: data)
        }

        private func flush() throws {
            guard !buffer.isEmpty else { return }
            try handle.write(contentsOf: buffer)
            buffer.removeAll(keepingCapacity: true)
        }

        func commit() throws {
            try flush()
            try handle.close()
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        }

        func abandon() {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
        }
    }
}
