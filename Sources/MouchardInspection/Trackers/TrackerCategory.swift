/// What a tracker domain's SDK does with what it receives; the `category` of a `Rules/trackers.json` entry.
///
/// A closed set so that a typo in the rule file is an error instead of a new category nobody reports on.
public enum TrackerCategory: String, Sendable, Hashable, CaseIterable, Codable {
    /// Install and re-engagement attribution (which ad or link brought the user): AppsFlyer, Adjust, Branch.
    case attribution
    /// Product and usage analytics: Firebase Analytics, Mixpanel, Amplitude.
    case analytics
    /// Ad serving, mediation, ad measurement and conversion pixels: AdMob, AppLovin, Meta Audience Network.
    case advertising
    /// Crash and error reports: Crashlytics, Sentry, Bugsnag.
    case crashReporting = "crash-reporting"
    /// Performance monitoring and real-user monitoring: Datadog, New Relic.
    case monitoring
    /// Screen recording and session replay: UXCam, Smartlook, FullStory.
    case sessionReplay = "session-replay"
    /// Push notification delivery: OneSignal, Airship, FCM.
    case push
    /// Marketing automation and in-app messaging: Braze, CleverTap, Iterable.
    case customerEngagement = "customer-engagement"
    /// Help desks and in-app chat: Intercom, Zendesk.
    case customerSupport = "customer-support"
    /// Social networks' login, sharing and embeds: Facebook, X, TikTok.
    case social
    /// Tag managers that load other trackers: Google Tag Manager, Tealium.
    case tagManager = "tag-manager"
    /// Consent management platforms: OneTrust, Didomi, Google UMP.
    case consent
    /// Experiments, remote configuration and feature flags: Optimizely, LaunchDarkly.
    case abTesting = "ab-testing"
    /// In-app purchase and subscription back ends: RevenueCat, Qonversion.
    case subscriptions
    /// Fraud prevention and device fingerprinting: ThreatMetrix, Sift.
    case fraud
    /// Embedded third-party content and widgets the user sees: video players, maps tiles, GIF search.
    case content
    /// Payments and checkout: Stripe, PayPal.
    case payments
    /// CDNs, cloud hosting and storage, DNS, font and library CDNs: CloudFront, Akamai, Cloudflare.
    /// They carry the app's own traffic; not a tracker.
    case infrastructure
    /// Operating system and platform services every app touches: Apple, Google Play services.
    /// Not a tracker by themselves.
    case platform

    /// False for the kinds that carry traffic without being a recipient that profiles the user
    /// (`infrastructure`, `platform`): a finding sent there must not look like a finding sent to a tracker.
    public var isTracker: Bool {
        switch self {
        case .infrastructure, .platform: return false
        default: return true
        }
    }
}
