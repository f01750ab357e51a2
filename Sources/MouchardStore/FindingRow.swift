import MouchardFindings

/// How a `Finding` maps to a row of the `findings` table: a few fields copied out for queries, and
/// the whole finding as one JSON object (the shape of docs/findings.md, keys sorted).
public enum FindingRow {
    /// The columns written (the row id is the store's).
    public static let columns = ["flow", "category", "type", "rule", "host", "json"]

    public static func values(_ f: Finding) -> [SQLValue] {
        [f.flow.map { .integer(Int64($0)) } ?? .null, .text(f.category.rawValue), .text(f.type), .text(f.rule),
         .text(f.destination.host), .text(StoreJSON.encode(f))]
    }

    /// The finding of a `json` column; `id` names it in the error.
    public static func decode(json: String, id: Int, file: String) throws(StoreError) -> Finding {
        guard let f = StoreJSON.decode(Finding.self, json) else {
            throw StoreError(file: file, message: "finding \(id) is damaged")
        }
        return f
    }
}
