/// Without a device profile, tells the device's own position from places it merely looked up:
/// the device's position recurs across a capture, searched places and destinations scatter.
/// When the densest 3 km cluster holds at least `minimumShare` of the points (and at least 3),
/// points farther than `keepRadius` from its centre are not the device's location. A pair is read
/// in both orders: `[lng, lat]` (GeoJSON, Mapbox paths, `ll=lng,lat`) is the same place as `lat,lng`.
struct LocationConsensus {
    let centre: Coordinate
    let keepRadius: Double

    init?(_ points: [Coordinate], clusterRadius: Double = 3000, keepRadius: Double = 6000, minimumShare: Double = 0.4) {
        guard points.count >= 3 else { return nil }
        let sample = Array(points.prefix(2000))
        var best: [Coordinate] = []
        for p in sample {
            let near = sample.filter { $0.distance(to: p) <= clusterRadius }
            if near.count > best.count { best = near }
        }
        guard best.count >= 3, Double(best.count) >= minimumShare * Double(sample.count) else { return nil }
        let lat = best.map(\.latitude).reduce(0, +) / Double(best.count)
        let lon = best.map(\.longitude).reduce(0, +) / Double(best.count)
        self.centre = Coordinate(latitude: lat, longitude: lon)
        self.keepRadius = keepRadius
    }

    func keeps(_ p: Coordinate) -> Bool {
        if p.distance(to: centre) <= keepRadius { return true }
        guard abs(p.longitude) <= 90 else { return false }
        return Coordinate(latitude: p.longitude, longitude: p.latitude).distance(to: centre) <= keepRadius
    }
}
