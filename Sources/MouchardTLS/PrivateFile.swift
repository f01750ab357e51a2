import Foundation

/// Files that hold secrets (CA key, key log): created with mode 0600 from the first byte
/// (never chmod-ed afterwards), directories with 0700. A handful of direct libc calls because
/// Foundation cannot create a file with a given mode atomically.
enum PrivateFile {
    /// Creates `path` and its missing parents; the last component gets mode 0700.
    static func makeDirectory(_ path: String) throws(TLSError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .file(path: path, reason: "exists and is not a directory") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path, !FileManager.default.fileExists(atPath: parent) {
            do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
                throw .file(path: parent, reason: "cannot create directory: \(error.localizedDescription)")
            }
        }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw .file(path: path, reason: "cannot create directory: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes `bytes` to a new file at `path` with `mode` (0600 by default): written to a unique
    /// temporary name created with that mode and O_EXCL, flushed, then moved into place (so
    /// readers never see half a key). With `exclusive`, an existing `path` is kept (link(2)
    /// fails with EEXIST) and the call returns false: another process won the race.
    @discardableResult
    static func writeNew(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600, exclusive: Bool = false) throws(TLSError) -> Bool {
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .file(path: temporary, reason: "cannot create: \(String(cString: strerror(errno)))") }
        var offset = 0
        var failure: String?
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count, let base = buffer.baseAddress {
                let n = write(fd, base + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        var placed = true
        if failure == nil {
            if exclusive {
                if link(temporary, path) != 0 {
                    if errno == EEXIST { placed = false } else { failure = String(cString: strerror(errno)) }
                }
                unlink(temporary)
            } else if rename(temporary, path) != 0 {
                failure = String(cString: strerror(errno))
            }
        }
        if let failure {
            unlink(temporary)
            throw .file(path: path, reason: "cannot write: \(failure)")
        }
        return placed
    }

    /// Opens `path` for appending (created 0600 if missing); returns the descriptor.
    static func openForAppend(_ path: String) throws(TLSError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .file(path: path, reason: "cannot open for appending: \(String(cString: strerror(errno)))") }
        return fd
    }

    /// The permission bits of `path`, or nil if it cannot be stat-ed.
    static func mode(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o7777)
    }
}
