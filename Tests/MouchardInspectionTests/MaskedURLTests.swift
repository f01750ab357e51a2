import MouchardInspection
import Testing

@Suite struct MaskedURLTests {
    @Test func queryValuesAndIdentifierSegmentsAreMasked() {
        let idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
        let shown = MaskedURL.display("http://t.example:8080/v1/u/\(idfa)/open?idfa=\(idfa)&n=3&flag&e=")
        #expect(!shown.contains(idfa))
        #expect(shown == "http://t.example:8080/v1/u/6D92…E7DC/open?idfa=6D92…E7DC&n=•&flag&e=")
    }

    @Test func ordinaryPathsStayReadable() {
        #expect(MaskedURL.display("https://o1.ingest.sentry.io/api/4505000000000002/envelope/")
            == "https://o1.ingest.sentry.io/api/4505…0002/envelope/")
        #expect(MaskedURL.display("https://api.example/v2/config") == "https://api.example/v2/config")
        #expect(MaskedURL.display("/relative?x=secretvalue") == "/relative?x=se…ue")
    }
}
