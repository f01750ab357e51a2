/// A request after the first stage of `Inspector.detect` (`scanStage`): the target's bytes and,
/// with a device profile, the spans the decode walk is pruned by (the matcher that found them is
/// the inspector's own, lent to the walk: not copied into every request).
struct ScannedRequest {
    let target: [UInt8]
    let pruning: RequestInterest?
}
