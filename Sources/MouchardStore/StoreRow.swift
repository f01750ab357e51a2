/// One row of a query result, read by column (0-based): what the row mappings (`FlowRow`) read,
/// whichever database the row came from (SQLite here, PostgreSQL in the fleet store).
public protocol StoreRow {
    func isNull(_ c: Int32) -> Bool
    func int64(_ c: Int32) -> Int64
    func double(_ c: Int32) -> Double
    /// UTF-8 text ("" for NULL).
    func text(_ c: Int32) -> String
    /// Bytes ([] for NULL).
    func blob(_ c: Int32) -> [UInt8]
}

extension StoreRow {
    public func int(_ c: Int32) -> Int { Int(int64(c)) }
    public func optionalDouble(_ c: Int32) -> Double? { isNull(c) ? nil : double(c) }
    public func optionalInt(_ c: Int32) -> Int? { isNull(c) ? nil : int(c) }
    public func optionalText(_ c: Int32) -> String? { isNull(c) ? nil : text(c) }
}
