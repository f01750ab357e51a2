import Foundation
import Testing
@testable import MouchardCLI

@Suite struct CACommandTests {
    private func home() throws -> String {
        let path = NSTemporaryDirectory() + "mouchard-ca-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func showCreatesThenReloads() throws {
        let dir = try home() + "/ca"
        let first = run(["ca", "show", "--home", dir])
        #expect(first.status == 0)
        #expect(first.err.hasPrefix("created a new CA in \(dir)"))
        #expect(first.out.contains("certificate: \(dir)/mouchard-ca.pem\n"))
        #expect(first.out.contains("subject:     CN=Mouchard CA ("))
        #expect(first.out.contains("mouchard-ca.key (mode 0600)\n"))
        #expect(first.out.contains("\nandroid:     system-store file name "))
        let fingerprint = first.out.split(separator: "\n").first { $0.hasPrefix("SHA-256:") }
        #expect(fingerprint?.count == "SHA-256:     ".count + 95)
        let second = run(["ca", "show", "--home", dir])
        #expect(second.status == 0 && second.err.isEmpty)
        #expect(second.out == first.out)
    }

    @Test func exportsAllThreeFormats() throws {
        let dir = try home()
        for format in ["pem", "der", "mobileconfig"] {
            let out = dir + "/ca.\(format)"
            let r = run(["ca", "export", "--home", dir + "/ca", "--format", format, out])
            #expect(r.status == 0, "\(r.err)")
            let data = try Data(contentsOf: URL(fileURLWithPath: out))
            switch format {
            case "pem": #expect(String(decoding: data, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"))
            case "der": #expect(data.first == 0x30)
            default:
                let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
                #expect(plist?["PayloadType"] as? String == "Configuration")
            }
        }
        let stdout = run(["ca", "export", "--home", dir + "/ca", "-"])
        #expect(stdout.out.hasPrefix("-----BEGIN CERTIFICATE-----"))
    }

    @Test func usageErrors() throws {
        let dir = try home()
        for args in [["ca"], ["ca", "frob"], ["ca", "export", "--home", dir], ["ca", "export", "--format", "p12", "x", "--home", dir],
                     ["ca", "show", "extra", "--home", dir], ["ca", "export", "--format", "der", "-", "--home", dir]] {
            let r = run(args)
            #expect(r.status == 64, "\(args)")
            #expect(r.err.contains("usage: mouchard ca "), "\(args)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/mouchard-ca.key"))
    }
}
