import Foundation

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
        // The first point with the most points within `clusterRadius` (itself included), and those
        // points. Most pairs are told near or far by bounds on their distance (`WithinRadius`);
        // only those close to the radius are measured.
        let within = WithinRadius(sample, radius: clusterRadius)
        var centreOfBest: Coordinate?
        var bestCount = 0
        for i in sample.indices {
            var near = 0
            for j in sample.indices where within(i, j) { near += 1 }
            if near > bestCount {
                bestCount = near
                centreOfBest = sample[i]
            }
        }
        let best = centreOfBest.map { c in sample.filter { $0.distance(to: c) <= clusterRadius } } ?? []
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

/// Whether two points of a list are within `radius` of each other, as `Coordinate.distance` says,
/// measured only when bounds cannot tell: the great-circle distance is at least the meridian arc
/// between the latitudes, and at most that arc plus the parallel arc at the latitude farther from
/// the equator. A margin of a metre keeps the bounds' answers those of the measure.
struct WithinRadius {
    let points: [Coordinate]
    /// Per point: the cosine of its latitude.
    let cosines: [Double]
    let radius: Double

    static let earthRadius = 6_371_000.0
    static let margin = 1.0

    init(_ points: [Coordinate], radius: Double) {
        self.points = points
        cosines = points.map { cos($0.latitude * .pi / 180) }
        self.radius = radius
    }

    func callAsFunction(_ i: Int, _ j: Int) -> Bool {
        let toMetres = Self.earthRadius * .pi / 180
        let meridian = abs(points[i].latitude - points[j].latitude) * toMetres
        // Off the sphere's latitudes (or not numbers), the bounds do not hold: measured.
        guard meridian.isFinite, abs(points[i].latitude) <= 90, abs(points[j].latitude) <= 90 else {
            return points[j].distance(to: points[i]) <= radius
        }
        if meridian > radius + Self.margin { return false }
        let parallel = abs(points[i].longitude - points[j].longitude) * toMetres * min(abs(cosines[i]), abs(cosines[j]))
        if meridian + parallel < radius - Self.margin { return true }
        return points[j].distance(to: points[i]) <= radius
    }
}
