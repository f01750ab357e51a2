import Foundation
import MouchardSniffer
import MouchardWire

/// `--keylog FILE` of `scan`, `report`, `import` and `sniff`: NSS key logs (SSLKEYLOGFILE) whose
/// secrets decrypt the TLS connections of pcap/pcapng inputs. Bad lines are warnings with their
/// line numbers.
enum KeyLogOption {
    static let spec = OptionSpec("--keylog", value: "FILE",
                                 help: "TLS key log (SSLKEYLOGFILE format) to decrypt captures with", repeatable: true)

    /// The key store of every `--keylog` file, nil when none was given; warnings go to stderr.
    static func load(_ args: ParsedArguments, io: CommandIO) throws -> TLSKeyStore? {
        let files = args.all("--keylog")
        guard !files.isEmpty else { return nil }
        let store = TLSKeyStore()
        for file in files {
            let data = try SessionFiles.read(file, currentDirectory: io.currentDirectory)
            let log = NSSKeyLog(text: [UInt8](data))
            for w in log.warnings { io.err("mouchard: warning: \(file): \(w)\n") }
            if log.warningCount > log.warnings.count {
                io.err("mouchard: warning: \(file): \(log.warningCount - log.warnings.count) more bad lines\n")
            }
            store.add(log)
        }
        return store
    }
}
