import Foundation
import MouchardAudit

/// What long work shows on a terminal's standard error, redrawn in place on one line: progress
/// for `scan`, `report`, `import` and `export` (`scan: a.pcap 45.2 MB of 120.0 MB (38%), 12.3 MB/s,
/// 6 s left`) and a status line for the commands that run until stopped (`proxy`, `sniff`,
/// `gateway`). Nothing at all unless standard error is a terminal and `--quiet` was not given;
/// progress appears only once the work has lasted `delay` seconds (a small input shows none) and
/// is redrawn at most `redrawsPerSecond` times a second. The line is erased before the command
/// prints anything else, so the terminal keeps only the command's real output.
final class TerminalProgress: @unchecked Sendable {
    /// How long work runs before its progress line appears (`MOUCHARD_PROGRESS_AFTER` seconds overrides).
    static let defaultDelay = 0.5
    static let redrawsPerSecond = 10.0
    /// `update` reads the clock once in this many calls (it is called for every packet).
    static let clockStride = 64

    static let quietOption = OptionSpec("--quiet", short: "-q", help: "no progress line on a terminal")

    private let write: @Sendable (String) -> Void
    private let verb: String
    private let delay: Double
    private let lock = NSLock()
    private let started = Date()
    private var inputStarted = Date()
    private var inputName = ""
    private var lastDraw = Date.distantPast
    private var shown = false
    private var calls = 0

    init(verb: String, delay: Double = TerminalProgress.defaultDelay, write: @escaping @Sendable (String) -> Void) {
        self.verb = verb
        self.delay = delay
        self.write = write
    }

    /// A progress line for `verb` when `io`'s standard error is a terminal and `quiet` is false, else nil.
    static func make(_ io: CommandIO, verb: String, quiet: Bool) -> TerminalProgress? {
        guard io.errIsTerminal, !quiet else { return nil }
        let delay = ProcessInfo.processInfo.environment["MOUCHARD_PROGRESS_AFTER"].flatMap(Double.init) ?? defaultDelay
        return TerminalProgress(verb: verb, delay: max(0, delay), write: io.err)
    }

    /// Work on one input: `done` of `total` units. Cheap enough to call for every packet.
    func update(_ progress: InputProgress) {
        calls &+= 1
        guard calls % Self.clockStride == 0 || progress.done >= progress.total else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let key = progress.name + "\u{0}" + (progress.noun ?? "")
        if key != inputName {
            inputName = key
            inputStarted = now
        }
        guard now.timeIntervalSince(started) >= delay, now.timeIntervalSince(lastDraw) >= 1 / Self.redrawsPerSecond else { return }
        lastDraw = now
        draw(ProgressText.line(verb: verb, progress, seconds: now.timeIntervalSince(inputStarted)))
    }

    /// Replaces the status line (commands that run until stopped; call it about once a second).
    func status(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        draw("\(verb): \(text)")
    }

    /// Runs `body` (which prints a whole line) with the progress line erased first; the line comes
    /// back at the next update.
    func printAbove(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        erase()
        body()
    }

    /// Erases the line for good (the work is over).
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        erase()
    }

    /// `write` with the line erased before each text (finding lines of a running proxy).
    func printingAbove(_ write: @escaping @Sendable (String) -> Void) -> @Sendable (String) -> Void {
        { s in self.printAbove { write(s) } }
    }

    /// `io` with its output and errors printed above the line (the line erased first).
    func wrapping(_ io: CommandIO) -> CommandIO {
        var wrapped = io
        wrapped.out = { s in self.printAbove { io.out(s) } }
        wrapped.err = { s in self.printAbove { io.err(s) } }
        return wrapped
    }

    /// `update` for `AuditInputs.progress`.
    var inputProgress: (InputProgress) -> Void { { [self] in update($0) } }

    private func draw(_ text: String) {
        write("\r" + text + "\u{1B}[K")
        shown = true
    }

    private func erase() {
        if shown { write("\r\u{1B}[K") }
        shown = false
    }
}

/// Redraws a status line from `text` every `interval` seconds on a background queue until `stop()`
/// (`proxy`, `gateway`: connections, flows, findings, bytes so far).
final class StatusTicker: @unchecked Sendable {
    private let timer: DispatchSourceTimer
    private let line: TerminalProgress

    init(_ line: TerminalProgress, interval: Double = 1, text: @escaping @Sendable () -> String) {
        self.line = line
        timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { line.status(text()) }
        timer.resume()
    }

    /// Stops the redraws and erases the line.
    func stop() {
        timer.cancel()
        line.finish()
    }
}

/// The text of a progress line (pure).
enum ProgressText {
    /// `scan: a.pcap 45.2 MB of 120.0 MB (38%), 12.3 MB/s, 6 s left`; entries read `1,200 of 5,000 flows`.
    static func line(verb: String, _ p: InputProgress, seconds: Double) -> String {
        let total = max(p.total, p.done)
        let percent = total > 0 ? p.done * 100 / total : 0
        let rate = seconds > 0 ? Double(p.done) / seconds : 0
        var text = "\(verb): \(shortName(p.name)) "
        if p.noun == nil {
            text += "\(size(p.done)) of \(size(total)) (\(percent)%)"
            if rate > 0 { text += ", \(size(Int(rate)))/s" }
        } else {
            text += "\(count(p.done)) of \(count(total)) \(p.noun ?? "") (\(percent)%)"
            if rate > 0 { text += ", \(count(Int(rate.rounded())))/s" }
        }
        if rate > 0 && p.done < total { text += ", \(duration(Double(total - p.done) / rate)) left" }
        return text
    }

    /// `812 B`, `45.2 kB`, `120.0 MB`, `1.3 GB` (powers of 1,000).
    static func size(_ bytes: Int) -> String {
        let units = ["kB", "MB", "GB", "TB"]
        guard bytes >= 1000 else { return "\(bytes) B" }
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }

    /// `5,000`.
    static func count(_ n: Int) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }

    /// `6 s`, `2 min 10 s`, `1 h 05 min`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return String(format: "%d h %02d min", s / 3600, (s % 3600) / 60)
    }

    /// The last path component, cut to 32 characters.
    static func shortName(_ name: String) -> String {
        let last = (name as NSString).lastPathComponent
        return last.count <= 32 ? last : String(last.prefix(31)) + "…"
    }
}
