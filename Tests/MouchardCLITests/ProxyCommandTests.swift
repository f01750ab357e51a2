import MouchardPosix
import Testing
@testable import MouchardCLI

/// `mouchard proxy` argument checks (the running proxy is tested in MouchardProxyTests).
@Suite struct ProxyCommandTests {
    @Test func nonLoopbackListenNeedsAllowRemote() {
        let r = run(["proxy", "--listen", "0.0.0.0:8080"])
        #expect(r.status == 64)
        #expect(r.err.contains("not a loopback address: add --allow-remote"))
    }

    @Test func badOptionValuesAreUsageErrors() {
        #expect(run(["proxy", "--listen", "localhost"]).status == 64)
        #expect(run(["proxy", "--listen", "example.com:80"]).err.contains("numeric ADDRESS:PORT"))
        #expect(run(["proxy", "--threads", "0"]).status == 64)
        #expect(run(["proxy", "--threads", "many"]).status == 64)
        let regex = run(["proxy", "--ignore-host", "(unclosed"])
        #expect(regex.status == 64)
        #expect(regex.err.contains("not a valid regular expression"))
        for (option, value, message) in [("--allow-client", "10.0.0.0/33", "--allow-client wants an address or network"),
                                         ("--allow-client", "lan", "--allow-client wants an address or network"),
                                         ("--proxy-auth", "nopassword", "--proxy-auth wants USER:PASSWORD"),
                                         ("--proxy-auth", ":secret", "--proxy-auth wants USER:PASSWORD"),
                                         ("--upstream-timeout", "0", "--upstream-timeout wants seconds")] {
            let r = run(["proxy", option, value])
            #expect(r.status == 64 && r.err.contains(message), "\(option) \(value): \(r.err)")
        }
    }

    @Test func allowedClientsDefaultToTheListeningInterfacesNetworks() throws {
        let loopback = try ProxyCommand.clientAccess(try parse(["--listen", "127.0.0.1:8080"]), listen: .init(ip: "127.0.0.1", port: 8080)!)
        #expect(loopback.networks.isEmpty && loopback.credentials == nil)
        let any = try ProxyCommand.clientAccess(try parse(["--allow-remote"]), listen: .init(ip: "0.0.0.0", port: 8080)!)
        #expect(any.networks.map(\.description).contains("127.0.0.0/8"), "the lo interface's network: \(any.networks)")
        let named = try ProxyCommand.clientAccess(try parse(["--allow-client", "192.168.1.23", "--allow-client", "fd00::/8",
                                                             "--proxy-auth", "audit:pa:ss"]),
                                                  listen: .init(ip: "0.0.0.0", port: 8080)!)
        #expect(named.networks.map(\.description) == ["192.168.1.23/32", "fd00::/8"])
        #expect(named.credentials == "audit:pa:ss")
    }

    func parse(_ args: [String]) throws -> ParsedArguments {
        guard case .run(let parsed) = try parseArguments(args, spec: ProxyCommand.spec) else { throw UsageError("help") }
        return parsed
    }

    @Test func helpListsTheOptions() {
        let r = run(["proxy", "--help"])
        #expect(r.status == 0)
        for option in ["--listen", "--device", "--session", "--ignore-host", "--ssl-keylog", "--threads", "--upstream-ca",
                       "--insecure-upstream", "--allow-remote", "--allow-client", "--proxy-auth", "--upstream-timeout", "--quiet", "--log-flows"] {
            #expect(r.out.contains(option), "\(option) missing from help")
        }
        #expect(Mouchard.helpText.contains("proxy"))
    }
}
