#if canImport(Glibc)
import Glibc
#endif

/// Process resource limits a server needs to adjust.
public enum ResourceLimits {
    /// Raises the soft limit on open files to the hard limit (each proxied exchange holds two
    /// sockets; the usual soft limit of 1024 is too low). Returns the new soft limit.
    @discardableResult
    public static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return Int(clamping: raised.rlim_cur) }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
