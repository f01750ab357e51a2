extension MultiPatternMatcher.Automaton {
    /// Calls `body(state, i)` for each index `i` of `h[0..<count]` whose byte leads the automaton,
    /// run from `start`, to a state that ends a pattern prefix, in order: what
    /// `MultiPatternMatcher.forEachMatch` passes to `confirmMatches`.
    ///
    /// The byte loop is a chain of dependent loads (a state is an offset read from the row of the
    /// one before): a long value is read as two halves at once, two independent chains. A state
    /// depends only on the last `depth` bytes read (the automaton's prefixes are at most that long),
    /// so the second half's run starts `depth - 1` bytes early from `start` and is in the right
    /// state when it reaches the half; its events are passed on after the first half's.
    func forEachAccepting(in h: UnsafePointer<UInt8>, count n: Int, depth: Int, _ body: (_ state: Int, _ i: Int) -> Void) {
        // One compiled run per transition width (no test per byte).
        if narrow {
            forEachAccepting(UInt16.self, in: h, count: n, depth: depth, body)
        } else {
            forEachAccepting(Int32.self, in: h, count: n, depth: depth, body)
        }
    }

    private func forEachAccepting<Entry: FixedWidthInteger>(_ entry: Entry.Type, in h: UnsafePointer<UInt8>, count n: Int, depth: Int,
                                                            _ body: (_ state: Int, _ i: Int) -> Void) {
        var a = 0, sa = start
        // Halves only when each is well longer than the overlap.
        let mid = depth >= 1 && n >= 4 * depth + 16 ? n / 2 : n
        if mid < n {
            var b = mid - (depth - 1), sb = start
            // An event of the second half, kept until the first half is done.
            var pending = false
            while a < mid && b < n {
                firstAccepting(entry, in: h, &a, mid, &sa, &b, n, &sb)
                guard a < mid && b < n else { break }
                if sa >= firstAccepting { body(sa, a) }
                a += 1
                if sb >= firstAccepting && b >= mid {
                    pending = true
                    break
                }
                b += 1
            }
            // The rest of the first half alone.
            a = firstAccepting(entry, in: h, from: a, count: mid, state: &sa)
            while a < mid {
                body(sa, a)
                a = firstAccepting(entry, in: h, from: a + 1, count: mid, state: &sa)
            }
            if pending {
                body(sb, b)
                b += 1
            }
            a = b
            sa = sb
        }
        // The second half (or the whole value) alone; events before `mid` were the first half's
        // (never met: the second run is past `mid` by now).
        let own = mid < n ? mid : 0
        a = firstAccepting(entry, in: h, from: a, count: n, state: &sa)
        while a < n {
            if a >= own { body(sa, a) }
            a = firstAccepting(entry, in: h, from: a + 1, count: n, state: &sa)
        }
    }

    /// Steps from `state` over `h[i..<count]` up to the first index whose byte leads to a state
    /// that ends a pattern prefix (`state >= firstAccepting`): that index, with `state` left in
    /// that state; `count` when no byte does (then `state` is the state after the last byte).
    ///
    /// A function of its own, not inlined: the byte loop keeps its values in registers (inlined
    /// into a caller with closures around it, they are spilled to the stack). Reading a value is
    /// then a call per accepting state.
    @inline(never)
    func firstAccepting<Entry: FixedWidthInteger>(_ entry: Entry.Type, in h: UnsafePointer<UInt8>, from i: Int, count: Int,
                                                  state: inout Int) -> Int {
        var s = state
        var k = i
        while k < count {
            s = step(s, h[k], entry)
            if s >= firstAccepting { break }
            k += 1
        }
        state = s
        return k
    }

    /// Two runs at once, `h[a..<aEnd]` from `sa` and `h[b..<bEnd]` from `sb`, a byte of each per
    /// step, up to the first step at which either reaches a state ending a pattern prefix (then
    /// `a` and `b` are that step's indices, `sa` and `sb` the states their bytes led to) or either
    /// run ends.
    @inline(never)
    func firstAccepting<Entry: FixedWidthInteger>(_ entry: Entry.Type, in h: UnsafePointer<UInt8>, _ a: inout Int, _ aEnd: Int,
                                                  _ sa: inout Int, _ b: inout Int, _ bEnd: Int, _ sb: inout Int) {
        var i = a, j = b, s = sa, t = sb
        while i < aEnd && j < bEnd {
            s = step(s, h[i], entry)
            t = step(t, h[j], entry)
            if s >= firstAccepting || t >= firstAccepting { break }
            i += 1
            j += 1
        }
        a = i
        b = j
        sa = s
        sb = t
    }
}
