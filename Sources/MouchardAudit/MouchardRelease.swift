/// The release of Mouchard this build is: recorded in reports, sessions and exported HAR files.
public enum MouchardRelease {
    public static let version = "0.1.0"
}
