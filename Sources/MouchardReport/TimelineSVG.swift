import Foundation

/// Draws the timeline of an audit as inline SVG: a bar per time step, requests above the axis and
/// findings below, with time labels. Only numbers and escaped category names reach the markup.
enum TimelineSVG {
    static func render(_ t: AuditSummary.Timeline) -> String {
        let width = 1000.0, height = 230.0, left = 48.0, right = 12.0
        let axis = 140.0, up = 112.0, down = 58.0
        let n = max(t.points.count, 1)
        let step = (width - left - right) / Double(n)
        let maxRequests = max(t.points.map(\.requests).max() ?? 0, 1)
        let maxFindings = max(t.points.map(\.findings).max() ?? 0, 1)
        let start = t.start.flatMap(ReportTime.parse)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"Requests and findings over time\">\n"
        svg += "<g font-family=\"system-ui,sans-serif\" font-size=\"11\" fill=\"#6b7280\">"
        svg += "<text x=\"\(Int(left - 6))\" y=\"\(Int(axis - up + 4))\" text-anchor=\"end\">\(maxRequests)</text>"
        svg += "<text x=\"\(Int(left - 6))\" y=\"\(Int(axis - 4))\" text-anchor=\"end\">0</text>"
        svg += "<text x=\"\(Int(left - 6))\" y=\"\(Int(axis + down))\" text-anchor=\"end\" fill=\"#b91c1c\">\(maxFindings)</text>"
        svg += "<text x=\"6\" y=\"\(Int(axis - up / 2))\" transform=\"rotate(-90 6 \(Int(axis - up / 2)))\" text-anchor=\"middle\" dominant-baseline=\"hanging\">requests</text>"
        svg += "<text x=\"6\" y=\"\(Int(axis + down / 2))\" transform=\"rotate(-90 6 \(Int(axis + down / 2)))\" text-anchor=\"middle\" dominant-baseline=\"hanging\" fill=\"#b91c1c\">findings</text>"
        svg += "</g>\n"
        svg += "<line x1=\"\(Int(left))\" y1=\"\(Int(axis))\" x2=\"\(Int(width - right))\" y2=\"\(Int(axis))\" stroke=\"#9ca3af\" stroke-width=\"1\"/>\n"
        let gap = step > 4 ? 1.0 : 0.0
        for (i, p) in t.points.enumerated() {
            let x = left + Double(i) * step
            var tip = start.map { ReportTime.clockTime($0.addingTimeInterval(p.offset)) } ?? "+" + ReportTime.duration(p.offset)
            tip += ": \(p.requests) request\(p.requests == 1 ? "" : "s"), \(p.findings) finding\(p.findings == 1 ? "" : "s")"
            if !p.categories.isEmpty { tip += " (" + p.categories.map(\.rawValue).joined(separator: ", ") + ")" }
            guard p.requests > 0 || p.findings > 0 else { continue }
            svg += "<g><title>\(esc(tip, 300))</title>"
            if p.requests > 0 {
                let hgt = max(1.5, up * Double(p.requests) / Double(maxRequests))
                svg += "<rect x=\(fmt(x + gap / 2)) y=\(fmt(axis - hgt)) width=\(fmt(max(step - gap, 0.5))) height=\(fmt(hgt)) fill=\"#94a3b8\"/>"
            }
            if p.findings > 0 {
                let hgt = max(1.5, down * Double(p.findings) / Double(maxFindings))
                let color = p.categories.count == 1 ? HTMLStyle.categoryColor(p.categories[0]) : "#dc2626"
                svg += "<rect x=\(fmt(x + gap / 2)) y=\(fmt(axis + 1)) width=\(fmt(max(step - gap, 0.5))) height=\(fmt(hgt)) fill=\"\(color)\"/>"
            }
            svg += "</g>\n"
        }
        // Time labels: five ticks.
        svg += "<g font-family=\"system-ui,sans-serif\" font-size=\"11\" fill=\"#374151\">"
        for k in 0...4 {
            let frac = Double(k) / 4
            let x = left + frac * (width - left - right)
            let offset = frac * t.durationSeconds
            let label = start.map { ReportTime.clockTime($0.addingTimeInterval(offset)) } ?? "+" + ReportTime.duration(offset)
            let anchor = k == 0 ? "start" : k == 4 ? "end" : "middle"
            svg += "<line x1=\(fmt(x)) y1=\"\(Int(axis + down + 4))\" x2=\(fmt(x)) y2=\"\(Int(axis + down + 9))\" stroke=\"#9ca3af\"/>"
            svg += "<text x=\(fmt(x)) y=\"\(Int(height - 6))\" text-anchor=\"\(anchor)\">\(esc(label, 40)) UTC</text>"
        }
        svg += "</g>\n</svg>\n"
        return svg
    }

    /// A coordinate as a quoted attribute value.
    private static func fmt(_ v: Double) -> String { "\"" + String(format: "%.1f", v) + "\"" }
}
