/// Phone-number knowledge: country calling codes, trunk prefixes and national number lengths
/// (from the ITU-T E.164 assignments and national numbering plans), and normalization of numbers
/// written with any separators to E.164 digits.
public enum PhoneNumbers {
    /// One country's numbering plan, as much as matching needs.
    public struct Plan: Sendable {
        public var region: String
        public var callingCode: String
        /// Prefix dialled before national numbers (`0` in most of Europe, `1` in NANP, none in Italy/Spain).
        public var trunkPrefix: String
        /// Digits of the national significant number.
        public var lengths: ClosedRange<Int>
    }

    public static let plans: [Plan] = [
        Plan(region: "FR", callingCode: "33", trunkPrefix: "0", lengths: 9...9),
        Plan(region: "BE", callingCode: "32", trunkPrefix: "0", lengths: 8...9),
        Plan(region: "CH", callingCode: "41", trunkPrefix: "0", lengths: 9...9),
        Plan(region: "LU", callingCode: "352", trunkPrefix: "", lengths: 6...11),
        Plan(region: "DE", callingCode: "49", trunkPrefix: "0", lengths: 6...13),
        Plan(region: "AT", callingCode: "43", trunkPrefix: "0", lengths: 7...13),
        Plan(region: "NL", callingCode: "31", trunkPrefix: "0", lengths: 9...9),
        Plan(region: "GB", callingCode: "44", trunkPrefix: "0", lengths: 9...10),
        Plan(region: "IE", callingCode: "353", trunkPrefix: "0", lengths: 7...9),
        Plan(region: "ES", callingCode: "34", trunkPrefix: "", lengths: 9...9),
        Plan(region: "PT", callingCode: "351", trunkPrefix: "", lengths: 9...9),
        Plan(region: "IT", callingCode: "39", trunkPrefix: "", lengths: 6...11),
        Plan(region: "SE", callingCode: "46", trunkPrefix: "0", lengths: 7...9),
        Plan(region: "NO", callingCode: "47", trunkPrefix: "", lengths: 8...8),
        Plan(region: "DK", callingCode: "45", trunkPrefix: "", lengths: 8...8),
        Plan(region: "FI", callingCode: "358", trunkPrefix: "0", lengths: 5...12),
        Plan(region: "PL", callingCode: "48", trunkPrefix: "", lengths: 9...9),
        Plan(region: "CZ", callingCode: "420", trunkPrefix: "", lengths: 9...9),
        Plan(region: "GR", callingCode: "30", trunkPrefix: "", lengths: 10...10),
        Plan(region: "RO", callingCode: "40", trunkPrefix: "0", lengths: 9...9),
        Plan(region: "HU", callingCode: "36", trunkPrefix: "06", lengths: 8...9),
        Plan(region: "US", callingCode: "1", trunkPrefix: "1", lengths: 10...10),
        Plan(region: "CA", callingCode: "1", trunkPrefix: "1", lengths: 10...10),
        Plan(region: "MX", callingCode: "52", trunkPrefix: "", lengths: 10...10),
        Plan(region: "BR", callingCode: "55", trunkPrefix: "0", lengths: 10...11),
        Plan(region: "AR", callingCode: "54", trunkPrefix: "0", lengths: 10...11),
        Plan(region: "MA", callingCode: "212", trunkPrefix: "0", lengths: 9...9),
        Plan(region: "DZ", callingCode: "213", trunkPrefix: "0", lengths: 8...9),
        Plan(region: "TN", callingCode: "216", trunkPrefix: "", lengths: 8...8),
        Plan(region: "SN", callingCode: "221", trunkPrefix: "", lengths: 9...9),
        Plan(region: "NG", callingCode: "234", trunkPrefix: "0", lengths: 8...10),
        Plan(region: "ZA", callingCode: "27", trunkPrefix: "0", lengths: 9...9),
        Plan(region: "IN", callingCode: "91", trunkPrefix: "0", lengths: 10...10),
        Plan(region: "CN", callingCode: "86", trunkPrefix: "0", lengths: 10...11),
        Plan(region: "JP", callingCode: "81", trunkPrefix: "0", lengths: 9...10),
        Plan(region: "KR", callingCode: "82", trunkPrefix: "0", lengths: 8...10),
        Plan(region: "AU", callingCode: "61", trunkPrefix: "0", lengths: 9...9),
        Plan(region: "NZ", callingCode: "64", trunkPrefix: "0", lengths: 8...10),
        Plan(region: "RU", callingCode: "7", trunkPrefix: "8", lengths: 10...10),
        Plan(region: "TR", callingCode: "90", trunkPrefix: "0", lengths: 10...10),
        Plan(region: "IL", callingCode: "972", trunkPrefix: "0", lengths: 8...9),
        Plan(region: "AE", callingCode: "971", trunkPrefix: "0", lengths: 8...9),
        Plan(region: "SG", callingCode: "65", trunkPrefix: "", lengths: 8...8),
    ]

    public static func plan(region: String) -> Plan? { plans.first { $0.region == region.uppercased() } }
    public static func callingCode(region: String) -> String? { plan(region: region)?.callingCode }

    /// The digits of `text` (everything else dropped).
    public static func digits(_ text: String) -> String { String(text.unicodeScalars.filter { $0.value >= 48 && $0.value <= 57 }.map(Character.init)) }

    /// For `+33 6…` or `0033 6…`: the plan whose calling code starts the digits (longest code first).
    public static func planOfInternational(_ text: String) -> Plan? {
        let t = text.trimmingASCIISpaces()
        var d = digits(t)
        if t.hasPrefix("+") {
            // digits as they are
        } else if d.hasPrefix("00") {
            d.removeFirst(2)
        } else {
            return nil
        }
        var best: Plan?
        for p in plans where d.hasPrefix(p.callingCode) {
            let nsn = d.count - p.callingCode.count
            if p.lengths.contains(nsn), best == nil || p.callingCode.count > best!.callingCode.count { best = p }
        }
        return best
    }

    public static func regionOfInternational(_ text: String) -> String? { planOfInternational(text)?.region }

    /// E.164 digits without `+` (`33645781290`) of a number written in any form; national numbers
    /// are read in `region`. Nil when it cannot be normalized.
    public static func e164Digits(_ text: String, region: String?) -> String? {
        if let p = planOfInternational(text) {
            var d = digits(text)
            if !text.trimmingASCIISpaces().hasPrefix("+"), d.hasPrefix("00") { d.removeFirst(2) }
            // "+33 (0)6 …": drop a trunk prefix written after the country code.
            let nsn = String(d.dropFirst(p.callingCode.count))
            return p.callingCode + nsn
        }
        guard let region, let p = plan(region: region) else { return nil }
        var d = digits(text)
        if !p.trunkPrefix.isEmpty, d.hasPrefix(p.trunkPrefix), p.lengths.contains(d.count - p.trunkPrefix.count) {
            d.removeFirst(p.trunkPrefix.count)
        }
        guard p.lengths.contains(d.count) else { return nil }
        return p.callingCode + d
    }

    /// Every digit-only way to write the number: E.164 digits (`33…`), international with `00`,
    /// national with the trunk prefix, and the bare national significant number when long enough.
    public static func digitForms(e164 digits: String) -> [String] {
        var out = [digits, "00" + digits]
        var best: Plan?
        for p in plans where digits.hasPrefix(p.callingCode) && p.lengths.contains(digits.count - p.callingCode.count) {
            if best == nil || p.callingCode.count > best!.callingCode.count { best = p }
        }
        if let p = best {
            let nsn = String(digits.dropFirst(p.callingCode.count))
            if !p.trunkPrefix.isEmpty { out.append(p.trunkPrefix + nsn) }
            if nsn.count >= 9 { out.append(nsn) }
        }
        return out
    }

    /// True when `digits` (possibly written with `+`) is a plausible international number:
    /// a known calling code followed by a national number of a valid length.
    public static func isPlausibleInternational(_ digits: String) -> Bool {
        // ASCII digits are compared as bytes (`hasPrefix` and `count` by characters cost thousands
        // of instructions a call over the plans); the count of their bytes is that of characters.
        var digits = digits
        return digits.withUTF8 { d in
            guard d.allSatisfy({ $0 < 0x80 }) else {
                let text = String(decoding: d, as: UTF8.self)
                return plans.contains { text.hasPrefix($0.callingCode) && $0.lengths.contains(text.count - $0.callingCode.count) }
            }
            for (plan, code) in zip(plans, callingCodeBytes) where code.count <= d.count && plan.lengths.contains(d.count - code.count) {
                if code.indices.allSatisfy({ d[$0] == code[$0] }) { return true }
            }
            return false
        }
    }

    /// The plans' calling codes as bytes, in the order of `plans`.
    private static let callingCodeBytes: [[UInt8]] = plans.map { Array($0.callingCode.utf8) }
}

extension String {
    func trimmingASCIISpaces() -> String {
        // No space byte at either end (most values): no character ends in one, nothing to trim.
        @inline(__always) func isSpace(_ b: UInt8?) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        if !isSpace(utf8.first), !isSpace(utf8.last) { return self }
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s.removeLast() }
        return String(s)
    }
}
