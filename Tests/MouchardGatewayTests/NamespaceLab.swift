import Foundation
import MouchardGateway

/// Three network namespaces of the test's own, named with its pid: "phone" (default route: the
/// gateway), "gateway" (runs `mouchard gateway`, uplink to the internet namespace) and "internet"
/// (origins, DNS, banner and UDP/443 listeners). Nothing in the host's own namespace is touched;
/// `destroy()` kills what runs inside and deletes the namespaces, also after a failure.
final class NamespaceLab: @unchecked Sendable {
    let tag: String
    let phone: String
    let gateway: String
    let internet: String
    /// Interfaces: phone end, gateway's phone side, gateway's uplink, internet end.
    let phoneIf: String
    let gatewayPhoneIf: String
    let gatewayUplinkIf: String
    let internetIf: String
    static let phoneAddress = "10.77.1.2"
    static let gatewayPhoneAddress = "10.77.1.1"
    static let gatewayUplinkAddress = "10.77.2.1"
    static let internetAddress = "10.77.2.2"
    /// IPv6 on both links too (ULA, no DAD wait): the phone is intercepted over v6 as well.
    static let phoneAddress6 = "fd77:1::2"
    static let gatewayPhoneAddress6 = "fd77:1::1"
    static let gatewayUplinkAddress6 = "fd77:2::1"
    static let internetAddress6 = "fd77:2::2"
    let host = HostCommands()
    private var children: [Process] = []
    private let lock = NSLock()

    static var available: Bool {
        getuid() == 0 && HostCommands().find("ip") != nil && HostCommands().find("nft") != nil
            && HostCommands().find("curl") != nil && HostCommands().find("python3") != nil
            && HostCommands().find("openssl") != nil
    }

    init() throws {
        let id = String(getpid())
        tag = id
        phone = "mph-\(id)"
        gateway = "mgw-\(id)"
        internet = "min-\(id)"
        phoneIf = "mp\(id)"
        gatewayPhoneIf = "mgp\(id)"
        gatewayUplinkIf = "mgu\(id)"
        internetIf = "mi\(id)"
        destroy()  // a previous run with the same pid
        do {
            try build()
        } catch {
            destroy()
            throw error
        }
    }

    private func ip(_ args: [String]) throws {
        let r = try host.run("ip", args)
        guard r.status == 0 else { throw LabError("ip \(args.joined(separator: " ")): \(r.output)") }
    }

    private func build() throws {
        for ns in [phone, gateway, internet] {
            try ip(["netns", "add", ns])
            try ip(["-n", ns, "link", "set", "lo", "up"])
        }
        try ip(["link", "add", phoneIf, "netns", phone, "type", "veth", "peer", "name", gatewayPhoneIf, "netns", gateway])
        try ip(["link", "add", gatewayUplinkIf, "netns", gateway, "type", "veth", "peer", "name", internetIf, "netns", internet])
        try ip(["-n", phone, "addr", "add", "\(Self.phoneAddress)/24", "dev", phoneIf])
        try ip(["-n", gateway, "addr", "add", "\(Self.gatewayPhoneAddress)/24", "dev", gatewayPhoneIf])
        try ip(["-n", gateway, "addr", "add", "\(Self.gatewayUplinkAddress)/24", "dev", gatewayUplinkIf])
        try ip(["-n", internet, "addr", "add", "\(Self.internetAddress)/24", "dev", internetIf])
        try ip(["-n", phone, "addr", "add", "\(Self.phoneAddress6)/64", "dev", phoneIf, "nodad"])
        try ip(["-n", gateway, "addr", "add", "\(Self.gatewayPhoneAddress6)/64", "dev", gatewayPhoneIf, "nodad"])
        try ip(["-n", gateway, "addr", "add", "\(Self.gatewayUplinkAddress6)/64", "dev", gatewayUplinkIf, "nodad"])
        try ip(["-n", internet, "addr", "add", "\(Self.internetAddress6)/64", "dev", internetIf, "nodad"])
        for (ns, dev) in [(phone, phoneIf), (gateway, gatewayPhoneIf), (gateway, gatewayUplinkIf), (internet, internetIf)] {
            try ip(["-n", ns, "link", "set", dev, "up"])
        }
        try ip(["-n", phone, "route", "add", "default", "via", Self.gatewayPhoneAddress])
        try ip(["-n", gateway, "route", "add", "default", "via", Self.internetAddress])
        try ip(["-n", phone, "-6", "route", "add", "default", "via", Self.gatewayPhoneAddress6])
        try ip(["-n", gateway, "-6", "route", "add", "default", "via", Self.internetAddress6])
        // The internet has no route back to the phone's network: only masquerading makes replies come back.
    }

    /// Starts `arguments` inside `namespace`; killed by `destroy()`.
    @discardableResult
    func spawn(_ namespace: String, _ arguments: [String], stdout: Pipe? = nil, stderr: Pipe? = nil) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: host.find("ip")!)
        p.arguments = ["netns", "exec", namespace] + arguments
        p.standardOutput = stdout ?? FileHandle.nullDevice
        p.standardError = stderr ?? FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        lock.lock(); children.append(p); lock.unlock()
        return p
    }

    /// Runs to completion inside `namespace` (killed after `timeout` seconds).
    func run(_ namespace: String, _ arguments: [String], timeout: Double = 30) throws -> (status: Int32, output: String) {
        let out = Pipe()
        let p = try spawn(namespace, arguments, stdout: out, stderr: out)
        let collector = PipeCollector(out)
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        return (p.terminationStatus, collector.waitForEnd(seconds: 2))
    }

    /// `/etc/netns/NAME/hosts`, which `ip netns exec NAME` mounts over /etc/hosts (removed by `destroy()`).
    func setHosts(_ namespace: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: "/etc/netns/\(namespace)", withIntermediateDirectories: true)
        try text.write(toFile: "/etc/netns/\(namespace)/hosts", atomically: true, encoding: .utf8)
    }

    /// Kills what the test started (by pid) and whatever still runs in its namespaces, then deletes them.
    func destroy() {
        lock.lock()
        let mine = children
        children = []
        lock.unlock()
        for p in mine where p.isRunning { kill(p.processIdentifier, SIGKILL) }
        for ns in [phone, gateway, internet] {
            if let r = try? host.run("ip", ["netns", "pids", ns]), r.status == 0 {
                for pid in r.output.split(separator: "\n").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
            }
            _ = try? host.run("ip", ["netns", "del", ns])
            try? FileManager.default.removeItem(atPath: "/etc/netns/\(ns)")
        }
        for p in mine { p.waitUntilExit() }
    }

    deinit { destroy() }
}

struct LabError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Collects a pipe's output on a background thread.
final class PipeCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var ended = false

    init(_ pipe: Pipe) {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] h in
            let chunk = h.availableData
            guard let self else { return }
            self.lock.lock()
            if chunk.isEmpty { self.ended = true; h.readabilityHandler = nil } else { self.data.append(chunk) }
            self.lock.unlock()
        }
    }

    var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: data, as: UTF8.self) }

    func waitForEnd(seconds: Double) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            lock.lock(); let done = ended; lock.unlock()
            if done { break }
            usleep(10_000)
        }
        return text
    }

    /// Waits until the text contains `needle` (bounded).
    func wait(for needle: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if text.contains(needle) { return true }
            usleep(20_000)
        }
        return false
    }
}
