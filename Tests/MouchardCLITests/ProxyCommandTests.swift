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
    }

    @Test func helpListsTheOptions() {
        let r = run(["proxy", "--help"])
        #expect(r.status == 0)
        for option in ["--listen", "--device", "--session", "--ignore-host", "--ssl-keylog", "--threads", "--upstream-ca",
                       "--insecure-upstream", "--allow-remote", "--quiet", "--log-flows"] {
            #expect(r.out.contains(option), "\(option) missing from help")
        }
        #expect(Mouchard.helpText.contains("proxy"))
    }
}
