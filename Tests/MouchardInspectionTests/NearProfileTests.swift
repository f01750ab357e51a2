import Testing
@testable import MouchardInspection

/// `KnownValueMatcher.isNearProfile` answers points far off by latitude without the haversine:
/// its answers stay exactly `distance <= radius`, at the edge of the radius too.
@Suite struct NearProfileTests {
    @Test func answersAsTheHaversineDoes() {
        var rng = SplitMix(seed: 0x9e0f)
        for home in [Coordinate(latitude: 47.0864, longitude: 2.3913), Coordinate(latitude: -89.99, longitude: 179.9),
                     Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 60.17, longitude: 24.94)] {
            let matcher = KnownValueMatcher(profile: DeviceProfile(location: home))
            for round in 0..<20_000 {
                // Points around the home at every scale, many near the radius (3 km: 0.027 degrees).
                let scale = [0.001, 0.02, 0.027, 0.03, 0.5, 40][round % 6]
                let lat = home.latitude + (Double(rng.next() % 2_000_001) / 1_000_000 - 1) * scale
                let lon = home.longitude + (Double(rng.next() % 2_000_001) / 1_000_000 - 1) * scale
                let inRange = (-90...90).contains(lat) && (-180...180).contains(lon)
                let expected = inRange && home.distance(to: Coordinate(latitude: lat, longitude: lon)) <= matcher.radius
                #expect(matcher.isNearProfile(latitude: lat, longitude: lon) == expected, "\(lat),\(lon)")
            }
        }
    }
}
