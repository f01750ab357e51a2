/// Names of the fields of protobuf messages that SDKs send, by host: a schema-less message gives
/// the rules only field numbers (`27`), which no key vocabulary can rank; these names can
/// (`resettable_device_id`). The walk keeps locations by number (`pb.1.27`) and gives the name as
/// the field's key.
enum ProtobufSchemas {
    /// Field paths below the message root (`1.27`: field 27 of the message in field 1) → names.
    typealias Names = [String: String]

    /// The names for messages sent to `host` (lower case), nil when none is known.
    static func names(host: String) -> Names? {
        if host == "app-measurement.com" || host.hasSuffix(".app-measurement.com") { return appMeasurement }
        return nil
    }

    /// Firebase / Google Analytics for Firebase app measurement (`POST app-measurement.com/a`): a
    /// `Batch` of `Bundle`s (field numbers as published in lari/firebase-ga4-app-measurement-protobuf,
    /// `app-measurement.proto`).
    static let appMeasurement: Names = [
        "1": "bundle",
        "1.8": "platform", "1.9": "operating_system_version", "1.10": "device_model", "1.11": "user_default_language",
        "1.13": "install_source", "1.14": "app_id", "1.16": "app_version", "1.21": "app_instance_id", "1.25": "gmp_app_id",
        "1.27": "resettable_device_id", "1.30": "firebase_instance_id",
    ]

    /// The name of the field at `path` (`pb.1.27`, or `field 1.27` for a message read on its own), nil when unnamed.
    static func name(_ names: Names, path: String) -> String? {
        if path.hasPrefix("pb.") { return names[String(path.dropFirst(3))] }
        if path.hasPrefix("field ") { return names[String(path.dropFirst(6))] }
        return nil
    }
}
