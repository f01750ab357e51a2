import MouchardFindings
/// The inline style sheet of the HTML report: screen and print. No captured text is ever written
/// into it; colours come from fixed classes chosen by index.
enum HTMLStyle {
    /// Category colours, by index in `FindingCategory.builtIn` (last = other categories).
    static let categoryColors = ["#c2410c", "#7c3aed", "#0f766e", "#b91c1c", "#1d4ed8", "#a16207", "#be185d", "#475569"]

    static func categoryClass(_ category: FindingCategory) -> String {
        "c\(FindingCategory.builtIn.firstIndex(of: category) ?? (categoryColors.count - 1))"
    }

    /// Class giving a card the left border of its category colour.
    static func categoryBorderClass(_ category: FindingCategory) -> String {
        "k\(FindingCategory.builtIn.firstIndex(of: category) ?? (categoryColors.count - 1))"
    }

    static func categoryColor(_ category: FindingCategory) -> String {
        categoryColors[min(FindingCategory.builtIn.firstIndex(of: category) ?? (categoryColors.count - 1), categoryColors.count - 1)]
    }

    static var css: String {
        var s = """
        :root{--ink:#111827;--muted:#6b7280;--line:#e5e7eb;--bg:#f8fafc;--card:#fff;--bad:#b91c1c;--warn:#b45309;--ok:#15803d;--accent:#1e3a8a}
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%}
        body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
        main{max-width:1180px;margin:0 auto;padding:0 24px 48px}
        code,.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px}
        code{overflow-wrap:anywhere}
        code.url{word-break:break-all;color:#334155}
        td.nw,td.nw code{white-space:nowrap}
        td.where{min-width:170px}
        .masthead{background:#0f172a;color:#e2e8f0;padding:14px 0}
        .masthead .in{max-width:1180px;margin:0 auto;padding:0 24px;display:flex;justify-content:space-between;gap:16px;flex-wrap:wrap;align-items:baseline}
        .brand{font-weight:700;letter-spacing:.02em;font-size:15px}
        .brand span{color:#94a3b8;font-weight:400}
        .masthead .meta{color:#94a3b8;font-size:12.5px}
        .verdict{margin:24px 0 8px;background:var(--card);border:1px solid var(--line);border-left:6px solid var(--bad);border-radius:10px;padding:22px 26px}
        .verdict.clean{border-left-color:var(--ok)}
        .verdict .kicker{text-transform:uppercase;font-size:11.5px;letter-spacing:.08em;color:var(--muted);font-weight:600}
        .verdict h1{font-size:24px;line-height:1.3;margin:6px 0 8px}
        .verdict p{margin:0;color:#374151;font-size:15px}
        .stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px;margin:18px 0 4px}
        .stat{background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:10px 14px}
        .stat b{display:block;font-size:24px;line-height:1.2}
        .stat span{color:var(--muted);font-size:12.5px}
        .stat.bad b{color:var(--bad)}
        .stat.warn b{color:var(--warn)}
        .chips{margin-top:14px;display:flex;flex-wrap:wrap;gap:8px}
        .chip{display:inline-block;border-radius:999px;padding:2px 10px;font-size:12.5px;font-weight:600;color:#fff}
        nav.toc{margin:14px 0 0;font-size:13px;color:var(--muted)}
        nav.toc a{color:var(--accent);text-decoration:none;margin-right:14px}
        section{margin-top:34px}
        h2{font-size:19px;margin:0 0 4px;padding-bottom:6px;border-bottom:2px solid var(--ink)}
        h3{font-size:16px;margin:22px 0 8px;display:flex;align-items:center;gap:8px}
        .lead{color:var(--muted);margin:6px 0 14px}
        .group{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:10px 0;overflow:hidden;break-inside:avoid}
        .group-head{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:baseline;padding:9px 14px;background:#f1f5f9;border-bottom:1px solid var(--line)}
        .group-head .host{font-weight:700}
        .group-head .count{margin-left:auto;color:var(--muted);font-size:12.5px}
        table{border-collapse:collapse;width:100%;background:var(--card)}
        th,td{text-align:left;vertical-align:top;padding:6px 10px;border-bottom:1px solid var(--line)}
        th{font-size:11.5px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);font-weight:600;background:#fafafa}
        td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
        .wrap{border:1px solid var(--line);border-radius:8px;overflow-x:auto}
        .badge{display:inline-block;border-radius:4px;padding:0 6px;font-size:11.5px;font-weight:600;border:1px solid transparent;white-space:nowrap}
        .b-third{background:#fee2e2;color:#991b1b}
        .b-first{background:#e0f2fe;color:#075985}
        .t-cleartext{background:#fee2e2;color:#991b1b;border-color:#fecaca}
        .t-intercepted-tls{background:#dcfce7;color:#166534;border-color:#bbf7d0}
        .t-tls-not-decrypted{background:#fef3c7;color:#92400e;border-color:#fde68a}
        .t-quic{background:#ede9fe;color:#5b21b6;border-color:#ddd6fe}
        .sev-high{color:var(--bad);font-weight:700}
        .sev-medium{color:var(--warn);font-weight:600}
        .sev-low{color:var(--muted)}
        .muted{color:var(--muted)}
        .small{font-size:12px}
        .ev{background:#fff7ed;border:1px solid #fed7aa;border-radius:4px;padding:0 4px}
        .matrix td.cell{text-align:center;font-variant-numeric:tabular-nums;min-width:54px}
        .matrix th.col{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;max-height:220px;text-transform:none;letter-spacing:0;font-size:12px;color:var(--ink);vertical-align:bottom;text-align:left}
        .h0{color:#cbd5e1}
        .h1{background:#fee2e2}.h2{background:#fecaca}.h3{background:#fca5a5}.h4{background:#f87171;color:#fff}.h5{background:#dc2626;color:#fff}
        .timeline svg{width:100%;height:auto;background:var(--card);border:1px solid var(--line);border-radius:8px}
        .legend{display:flex;gap:16px;font-size:12.5px;color:var(--muted);margin-top:6px}
        .legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:-1px}
        dl.method{display:grid;grid-template-columns:max-content 1fr;gap:6px 18px;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:0}
        dl.method dt{color:var(--muted)}
        dl.method dd{margin:0}
        .note{background:#fffbeb;border:1px solid #fde68a;border-radius:8px;padding:8px 12px;margin:10px 0;font-size:13px}
        footer{margin-top:40px;color:var(--muted);font-size:12px;border-top:1px solid var(--line);padding-top:10px}
        @media print{
          @page{size:A4;margin:14mm 12mm}
          body{background:#fff;font-size:10.5pt}
          main{max-width:none;padding:0}
          .masthead{background:#fff;color:var(--ink);border-bottom:2px solid var(--ink);padding:0 0 6px}
          .masthead .in{padding:0}
          .masthead .meta,.brand span{color:var(--muted)}
          nav.toc{display:none}
          .verdict,.group,.wrap,dl.method,.stat,.timeline svg{border-color:#9ca3af}
          section{break-inside:auto}
          h2,h3{break-after:avoid}
          tr,.stat{break-inside:avoid}
          thead{display:table-header-group}
          .wrap{overflow:visible}
          *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
        }

        """
        for (i, color) in categoryColors.enumerated() {
            s += ".c\(i){background:\(color)}\n.k\(i){border-left:4px solid \(color)}\n"
        }
        return s
    }
}
