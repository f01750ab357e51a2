import CPcap
import MouchardWire

/// A BPF filter expression (tcpdump syntax), compiled by libpcap so that a mistake is reported
/// before any capture starts.
public enum BPFFilter {
    /// Compiles `expression` for `linkType`; throws a `PcapError` carrying libpcap's explanation
    /// (e.g. `syntax error`) when it does not compile.
    public static func validate(_ expression: String, linkType: LinkType = .ethernet, snaplen: Int32 = 262_144) throws {
        guard let dead = pcap_open_dead(Int32(linkType.rawValue), snaplen) else {
            throw PcapError("filter '\(expression)'", "cannot open a pcap handle to compile it")
        }
        defer { pcap_close(dead) }
        try compileAndApply(expression, on: dead, apply: false)
    }

    /// Compiles `expression` on `handle` and, when `apply`, installs it.
    static func compileAndApply(_ expression: String, on handle: OpaquePointer, apply: Bool) throws {
        var program = bpf_program()
        guard pcap_compile(handle, &program, expression, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            throw PcapError("bad filter '\(expression)'", String(cString: pcap_geterr(handle)))
        }
        defer { pcap_freecode(&program) }
        if apply, pcap_setfilter(handle, &program) != 0 {
            throw PcapError("cannot install filter '\(expression)'", String(cString: pcap_geterr(handle)))
        }
    }
}
