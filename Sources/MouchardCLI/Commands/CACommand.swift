import Foundation
import MouchardTLS

/// `mouchard ca show|export`: the interception CA the phone must trust (created on first use).
struct CACommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "ca",
        abstract: "show or export the interception CA (created on first use)",
        usage: "show | export [--format pem|der|mobileconfig] OUT",
        discussion: """
        subcommands:
          show        path, SHA-256 fingerprint, subject and validity of the CA
          export OUT  write the CA certificate (never its key) to OUT ('-' for stdout, pem/mobileconfig only)

        The CA lives in $MOUCHARD_HOME, else ~/.mouchard (key file mode 0600). On the phone, the proxy
        also serves it at http://mouchard.ca/ with install steps for iOS and Android.

        examples:
          mouchard ca show
          mouchard ca export --format mobileconfig mouchard.mobileconfig
        """,
        options: [
            OptionSpec("--format", value: "FORMAT", help: "export format: pem (default), der or mobileconfig"),
            OptionSpec("--home", value: "DIR", help: "CA directory (default $MOUCHARD_HOME or ~/.mouchard)"),
        ],
        minPositionals: 0, maxPositionals: 2)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        guard let subcommand = args.positionals.first else { throw UsageError("'ca' needs a subcommand: show or export") }
        switch subcommand {
        case "show":
            guard args.positionals.count == 1 else { throw UsageError("'ca show' takes no argument") }
            guard args.value("--format") == nil else { throw UsageError("--format is only for 'ca export'") }
            let authority = try load(args, io)
            io.out(describe(authority))
            return 0
        case "export":
            guard args.positionals.count == 2 else { throw UsageError("'ca export' needs OUT (a file, or '-' for stdout)") }
            let formatName = args.value("--format") ?? "pem"
            guard let format = CAExportFormat(rawValue: formatName) else {
                throw UsageError("unknown format '\(formatName)' (pem, der or mobileconfig)")
            }
            let out = args.positionals[1]
            if out == "-", format == .der { throw UsageError("DER is binary: give a file name, not '-'") }
            let authority = try load(args, io)
            let bytes = authority.export(format)
            if out == "-" {
                io.out(String(decoding: bytes, as: UTF8.self))
            } else {
                let path = resolve(out, io)
                guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                    throw CLIError("cannot write \(path)")
                }
                io.err("wrote \(format.rawValue) CA certificate to \(path) (SHA-256 \(authority.certificate.sha256Fingerprint))\n")
            }
            return 0
        default:
            throw UsageError("unknown subcommand '\(subcommand)' (show or export)")
        }
    }

    private static func load(_ args: ParsedArguments, _ io: CommandIO) throws -> CertificateAuthority {
        let directory = args.value("--home").map { resolve($0, io) } ?? MouchardHome.directory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory)
        if authority.wasCreated { io.err("created a new CA in \(authority.directory)\n") }
        return authority
    }

    private static func resolve(_ path: String, _ io: CommandIO) -> String {
        path.hasPrefix("/") ? path : (io.currentDirectory as NSString).appendingPathComponent(path)
    }

    /// "mode 0600", with a warning when group or others may read the key.
    static func keyModeNote(_ mode: Int?) -> String {
        guard let mode else { return "mode unknown" }
        let octal = "mode 0" + String(mode, radix: 8)
        return mode & 0o077 != 0 ? octal + ", WARNING: readable by others; chmod 600 it" : octal
    }

    static func describe(_ authority: CertificateAuthority) -> String {
        let certificate = authority.certificate
        let dates = ISO8601DateFormatter()
        return """
        certificate: \(authority.certificatePath)
        key:         \(authority.keyPath) (\(keyModeNote(authority.keyFileMode)))
        subject:     \(certificate.subject)
        SHA-256:     \(certificate.sha256Fingerprint)
        valid from:  \(dates.string(from: certificate.notBefore))
        valid until: \(dates.string(from: certificate.notAfter))
        serial:      \(certificate.serialHex)
        android:     system-store file name \(authority.androidSystemStoreFileName)
        phone:       browse http://\(OnboardingPage.host)/ through the proxy to install it

        """
    }
}
