/// The registrable domain of a host ("eTLD+1": `api.lumotorch.co.uk` → `lumotorch.co.uk`), from a small
/// built-in table of public suffixes.
///
/// Not the full Public Suffix List: our own compact table of the multi-label suffixes that matter when
/// grouping an app's hosts — country second levels used by companies (`co.uk`, `com.au`, `co.jp`,
/// `com.br`, ...) and shared hosting platforms where each customer gets a subdomain (`cloudfront.net`,
/// `herokuapp.com`, `web.app`, ...: `a1b2.cloudfront.net` is its own registrable domain, not CloudFront's).
/// Any other name uses the last label as its suffix (the Public Suffix List's default `*` rule). The test
/// and reserved top-level domains of RFC 2606 / RFC 6761 (`.example`, `.test`, `.invalid`, `.localhost`)
/// and mDNS `.local` are ordinary one-label suffixes: `cdn.lumotorch.example` → `lumotorch.example`.
/// IP addresses have no registrable domain: they stand for themselves.
public enum RegistrableDomain {
    /// Multi-label public suffixes known to this build (lower case).
    public static let multiLabelSuffixes: Set<String> = [
        // United Kingdom
        "co.uk", "org.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "ac.uk", "gov.uk", "nhs.uk", "sch.uk",
        // Australia, New Zealand
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "id.au", "asn.au",
        "co.nz", "net.nz", "org.nz", "govt.nz", "ac.nz", "geek.nz",
        // Japan, Korea, China, Taiwan, Hong Kong
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "ed.jp", "gr.jp", "lg.jp",
        "co.kr", "or.kr", "ne.kr", "go.kr", "ac.kr",
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn",
        "com.tw", "net.tw", "org.tw", "idv.tw", "com.hk", "net.hk", "org.hk",
        // South and South-East Asia
        "co.in", "net.in", "org.in", "firm.in", "gen.in", "ind.in", "gov.in", "ac.in",
        "com.sg", "net.sg", "org.sg", "edu.sg", "gov.sg", "com.my", "net.my", "org.my",
        "co.id", "or.id", "web.id", "ac.id", "go.id", "co.th", "in.th", "ac.th", "go.th",
        "com.ph", "net.ph", "org.ph", "com.vn", "net.vn", "com.pk", "net.pk", "org.pk", "com.bd",
        // Americas
        "com.br", "net.br", "org.br", "gov.br", "edu.br", "art.br",
        "com.mx", "org.mx", "gob.mx", "com.ar", "net.ar", "org.ar", "gob.ar",
        "com.co", "net.co", "org.co", "gov.co", "com.pe", "com.ve", "com.uy", "com.ec", "cl.cl",
        // Europe, Middle East, Africa
        "com.tr", "net.tr", "org.tr", "gen.tr", "com.ua", "net.ua", "org.ua", "in.ua",
        "com.pl", "net.pl", "org.pl", "co.at", "or.at", "com.es", "org.es", "nom.es",
        "com.pt", "com.gr", "com.cy", "com.mt", "co.hu", "co.il", "org.il", "ac.il", "gov.il",
        "com.sa", "net.sa", "com.eg", "com.ng", "co.ke", "co.za", "org.za", "net.za", "web.za",
        "co.ma", "com.ru", "net.ru", "org.ru", "msk.ru", "spb.ru",
        // Shared hosting platforms: every customer name under these is its own site.
        "appspot.com", "herokuapp.com", "cloudfront.net", "azurewebsites.net", "cloudapp.net",
        "firebaseapp.com", "web.app", "github.io", "gitlab.io", "netlify.app", "vercel.app", "pages.dev",
        "workers.dev", "blogspot.com", "s3.amazonaws.com", "elasticbeanstalk.com", "fly.dev", "onrender.com",
    ]

    /// The registrable domain of an already normalized host (see `HostName.normalized`), or the host itself
    /// for an IP address; nil when the host is itself a public suffix (`co.uk`, `example`).
    public static func of(_ host: String) -> String? {
        if HostName.isIPAddress(host) { return host }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, !labels.contains(where: \.isEmpty) else { return nil }
        // Longest known multi-label suffix first (3 labels, then 2), else the last label.
        var suffixLabels = 1
        for length in stride(from: min(3, labels.count), through: 2, by: -1) {
            let suffix = labels.suffix(length).joined(separator: ".")
            if multiLabelSuffixes.contains(suffix) {
                suffixLabels = length
                break
            }
        }
        guard labels.count > suffixLabels else { return nil }
        return labels.suffix(suffixLabels + 1).joined(separator: ".")
    }

    /// The label just left of the public suffix: `lumotorch` for `api.lumotorch.co.uk`; nil as for `of`.
    public static func nameLabel(of host: String) -> String? {
        guard !HostName.isIPAddress(host), let domain = of(host) else { return nil }
        return domain.split(separator: ".").first.map(String.init)
    }
}
