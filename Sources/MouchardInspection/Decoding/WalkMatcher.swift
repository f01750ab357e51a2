/// The inspector's known-value matcher, held by reference for the decode walk (profile mode with
/// pruning), which asks it for the spans of what it decodes: every request's walk keeps the
/// matcher, and keeping a reference is one retain and one release, where a copy of the matcher
/// (an optional struct of several words) is copied and destroyed through outlined witnesses.
final class WalkMatcher: Sendable {
    let matcher: KnownValueMatcher

    init(_ matcher: KnownValueMatcher) { self.matcher = matcher }
}
