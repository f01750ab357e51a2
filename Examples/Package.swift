// swift-tools-version:6.0
// An app team's test suite using MouchardKit: the code under test is a tiny client of a fictional
// app's back end (LumoClient); its tests audit a recorded HAR, run the client against Mouchard's
// mock and assert what it sent, and run a client through Mouchard's recording proxy.
import PackageDescription

let package = Package(
    name: "MouchardExamples",
    dependencies: [.package(name: "Mouchard", path: "..")],
    targets: [
        .target(name: "LumoClient"),
        .testTarget(name: "LumoClientTests", dependencies: ["LumoClient", .product(name: "MouchardKit", package: "Mouchard")]),
    ]
)
