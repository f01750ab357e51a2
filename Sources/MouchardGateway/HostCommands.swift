import Foundation

/// Runs the host tools the gateway needs (`nft`, `conntrack`) and reads and writes `/proc/sys`.
/// The thin, impure edge of MouchardGateway: every decision is made by the pure types.
public struct HostCommands: Sendable {
    /// Where the tools are looked for besides `PATH` (root's sbin directories are often not on it).
    static let extraDirectories = ["/usr/sbin", "/sbin", "/usr/local/sbin"]

    public init() {}

    /// The full path of `tool`, or nil.
    public func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":").map(String.init) + Self.extraDirectories {
            let candidate = dir + "/" + tool
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `tool arguments` with `input` on stdin; returns status and stderr+stdout text.
    @discardableResult
    public func run(_ tool: String, _ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        guard let executable = find(tool) else { throw GatewayError("\(tool) is not installed (apt-get install \(Self.package(of: tool)))") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        let inPipe = Pipe()
        p.standardInput = input == nil ? FileHandle.nullDevice : inPipe
        try p.run()
        if let input {
            inPipe.fileHandleForWriting.write(Data(input.utf8))
            try? inPipe.fileHandleForWriting.close()
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func package(of tool: String) -> String {
        switch tool {
        case "nft": return "nftables"
        case "conntrack": return "conntrack"
        default: return tool
        }
    }

    /// Applies an nft script; throws with nft's own message on failure.
    public func nft(_ script: String) throws {
        let r = try run("nft", ["-f", "-"], input: script)
        guard r.status == 0 else {
            throw GatewayError("nft refused the rules: \(r.output.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    /// True when the table exists.
    public func tableExists(_ qualified: String) -> Bool {
        ((try? run("nft", ["list", "table"] + qualified.split(separator: " ").map(String.init)))?.status ?? 1) == 0
    }

    /// The text of `nft -j list chains` (every table's chains as JSON), nil when nft cannot list them.
    public func nftChainsJSON() -> String? {
        guard let r = try? run("nft", ["-j", "list", "chains"]), r.status == 0 else { return nil }
        return r.output
    }

    /// Forgets the conntrack entries of `networks` (new NAT decisions apply to live flows too).
    /// Returns a warning when conntrack is missing or failed; never throws.
    public func flushConntrack(_ networks: [IPNetwork]) -> String? {
        guard find("conntrack") != nil else { return "conntrack is not installed: existing connections keep their old NAT decisions" }
        for n in networks {
            let family = n.isIPv6 ? "ipv6" : "ipv4"
            let mask = Self.mask(n)
            // Exit 1 with "0 flow entries" is not an error.
            _ = try? run("conntrack", ["-D", "-f", family, "-s", n.address, "--mask-src", mask])
        }
        return nil
    }

    /// The netmask of a prefix, as conntrack's --mask-src wants it.
    static func mask(_ n: IPNetwork) -> String {
        if n.isIPv6 {
            var groups: [String] = []
            for g in 0..<8 {
                let bits = max(0, min(16, n.prefixLength - g * 16))
                let value = bits == 0 ? 0 : (0xFFFF << (16 - bits)) & 0xFFFF
                groups.append(String(value, radix: 16))
            }
            return groups.joined(separator: ":")
        }
        let value: UInt32 = n.prefixLength == 0 ? 0 : ~UInt32(0) << UInt32(32 - n.prefixLength)
        return [24, 16, 8, 0].map { String((value >> UInt32($0)) & 0xFF) }.joined(separator: ".")
    }

    /// The value of a sysctl (trimmed), nil when the key does not exist.
    public func readSysctl(_ key: String) -> String? {
        guard let data = FileManager.default.contents(atPath: SysctlPlan.path(of: key)) else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func writeSysctl(_ key: String, _ value: String) throws {
        let path = SysctlPlan.path(of: key)
        guard let handle = FileHandle(forWritingAtPath: path) else { throw GatewayError("cannot write \(path) (\(key))") }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data((value + "\n").utf8))
        } catch {
            throw GatewayError("cannot set \(key) = \(value): \(error)")
        }
    }
}
