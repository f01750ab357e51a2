/// `1 request`, `3 requests`, `1 company`, `2 companies`: a count with its noun, for the text people read.
public func counted(_ n: Int, _ noun: String, _ plural: String? = nil) -> String {
    "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
}
