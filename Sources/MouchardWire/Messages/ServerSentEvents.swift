/// A `text/event-stream` body split into its events (the HTML standard's "Server-sent events"
/// parsing): lines end with CRLF, LF or CR; `data:` lines of one event are joined with LF; `event:`
/// names it, `id:` gives its id; lines starting with `:` are comments; an empty line dispatches the
/// event (one without data is dropped, as a browser drops it). A last event the body stops inside (a
/// cut capture) is kept, marked incomplete, since its data left the server all the same.
public enum ServerSentEvents {
    /// One dispatched event.
    public struct Event: Sendable, Equatable {
        /// The `event:` field; nil means the default type, `message`.
        public var type: String?
        public var id: String?
        /// The `data:` lines joined with LF, as bytes (the stream is UTF-8; bytes are kept as sent).
        public var data: [UInt8]
        /// Body offset of the event's first line.
        public var offset: Int
        /// False for a last event the body ended inside.
        public var isComplete: Bool
    }

    /// Events of one body at most; the rest is not split (`Split.stoppedAtLimit`).
    public static let defaultMaxEvents = 10_000

    public struct Split: Sendable, Equatable {
        public var events: [Event] = []
        public var stoppedAtLimit = false
    }

    /// The events of `body`, in order.
    public static func split(_ body: ArraySlice<UInt8>, maxEvents: Int = defaultMaxEvents) -> Split {
        var out = Split()
        var data: [UInt8] = []
        var hasData = false
        var type: String?
        var id: String?
        var eventStart = body.startIndex
        var sawField = false
        var i = body.startIndex
        // A UTF-8 byte order mark at the start is not part of the first line.
        if body.count >= 3, body[i] == 0xEF, body[i + 1] == 0xBB, body[i + 2] == 0xBF { i += 3 }
        while i < body.endIndex {
            // One line: up to CR, LF or CRLF.
            var end = i
            while end < body.endIndex, body[end] != 0x0A, body[end] != 0x0D { end += 1 }
            let line = body[i..<end]
            let terminated = end < body.endIndex
            var next = end
            if terminated {
                next = end + 1
                if body[end] == 0x0D, next < body.endIndex, body[next] == 0x0A { next += 1 }
            }
            if line.isEmpty {
                if terminated {
                    if hasData {
                        guard out.events.count < maxEvents else {
                            out.stoppedAtLimit = true
                            return out
                        }
                        out.events.append(Event(type: type, id: id, data: data, offset: eventStart - body.startIndex, isComplete: true))
                    }
                    data = []
                    hasData = false
                    type = nil
                    sawField = false
                }
                i = next
                continue
            }
            if !sawField {
                sawField = true
                eventStart = i
            }
            if line.first != UInt8(ascii: ":") {
                let colon = line.firstIndex(of: UInt8(ascii: ":"))
                let name = line[..<(colon ?? line.endIndex)]
                var value = colon.map { line[($0 + 1)...] } ?? line[line.endIndex...]
                if value.first == 0x20 { value = value.dropFirst() }
                switch String(decoding: name, as: UTF8.self) {
                case "data":
                    if hasData { data.append(0x0A) }
                    data.append(contentsOf: value)
                    hasData = true
                case "event":
                    type = String(decoding: value, as: UTF8.self)
                case "id":
                    if !value.contains(0) { id = String(decoding: value, as: UTF8.self) }
                default:
                    break  // `retry` and unknown fields say nothing about the event's content
                }
            }
            i = next
        }
        if hasData, out.events.count < maxEvents {
            out.events.append(Event(type: type, id: id, data: data, offset: eventStart - body.startIndex, isComplete: false))
        }
        return out
    }
}
