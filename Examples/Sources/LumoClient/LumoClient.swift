import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The code under test: the start-up calls of the (fictional) Lumo Torch app to its own back end.
/// `sendsAdvertisingID` is the bug a privacy test must catch: the app's version that forwards the
/// advertising ID to an ad network.
public struct LumoClient: Sendable {
    public var baseURL: URL
    public var deviceID: String
    public var session: URLSession

    public init(baseURL: URL, deviceID: String, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.deviceID = deviceID
        self.session = session
    }

    /// GET /v2/config, then GET /v2/launch with the app's own device id: what the app does at start.
    public func start() async throws -> (config: Data, launch: Data) {
        let config = try await get("/v2/config?app=com.lumo.torch&v=2.4.0")
        let launch = try await get("/v2/launch?device=\(deviceID)&lat=45.7640&lon=4.8357&tz=Europe%2FParis")
        return (config, launch)
    }

    func get(_ pathAndQuery: String) async throws -> Data {
        guard let url = URL(string: pathAndQuery, relativeTo: baseURL) else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.setValue("LumoTorch/2.4.0 (com.lumo.torch; build:2)", forHTTPHeaderField: "User-Agent")
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
        return data
    }
}
