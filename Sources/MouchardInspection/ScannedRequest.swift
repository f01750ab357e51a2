/// A request after the first stage of `Inspector.detect` (`scanStage`): the target's bytes and,
/// with a device profile, the spans the decode walk is pruned by.
struct ScannedRequest {
    let target: [UInt8]
    let pruning: (interest: RequestInterest, matcher: KnownValueMatcher)?
}
