import Foundation
import MouchardWire

/// A flow's WebSocket messages in HAR, as Chrome exports them: the entry member
/// `_webSocketMessages`, a list of `{"type": "send"|"receive", "time": SECONDS_SINCE_1970,
/// "opcode": 1|2, "data": TEXT}`; binary data (opcode 2) is base64. Mouchard adds `_compressed`
/// and `_truncated` when they are true.
enum HARWebSocketMessages {
    static let member = "_webSocketMessages"

    static func value(_ messages: [FlowMessage]) -> JSONValue {
        .array(messages.map { m in
            var members: [(String, JSONValue)] = [
                ("type", .string(m.direction == .client ? "send" : "receive")),
                ("time", .number(String(m.time.timeIntervalSince1970))),
                ("opcode", .number(String(m.opcode))),
                ("data", .string(m.opcode == FlowMessage.textOpcode ? String(decoding: m.data, as: UTF8.self)
                                                                  : Data(m.data).base64EncodedString())),
            ]
            if m.compressed { members.append(("_compressed", .bool(true))) }
            if m.truncated { members.append(("_truncated", .bool(true))) }
            return .object(members)
        })
    }

    static func read(_ node: HARNode) throws(HARError) -> [FlowMessage] {
        var messages: [FlowMessage] = []
        for item in try node.items() {
            try item.requireObject()
            let type = try item.required("type").string()
            guard type == "send" || type == "receive" else { throw item.fail("expected \"send\" or \"receive\", found \"\(type.prefix(40))\"") }
            let opcode = try item.child("opcode")?.int() ?? FlowMessage.textOpcode
            let text = try item.child("data")?.string() ?? ""
            let data = opcode == FlowMessage.textOpcode ? Array(text.utf8) : HARReader.decodeBase64(text) ?? Array(text.utf8)
            messages.append(FlowMessage(direction: type == "send" ? .client : .server,
                                        time: Date(timeIntervalSince1970: try item.child("time")?.double() ?? 0), opcode: opcode,
                                        data: data, compressed: try item.child("_compressed")?.bool() ?? false,
                                        truncated: try item.child("_truncated")?.bool() ?? false))
        }
        return messages
    }
}
