// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "feedmerge",
    products: [
        .executable(name: "feedmerge", targets: ["feedmerge"])
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .target(name: "FeedModel"),
        .target(name: "XMLTree", dependencies: ["CLibXML2"]),
        .target(name: "FeedParse", dependencies: ["FeedModel", "XMLTree"]),
        .executableTarget(name: "feedmerge", dependencies: ["FeedModel", "FeedParse"]),
        .testTarget(
            name: "XMLTreeTests",
            dependencies: ["XMLTree"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "FeedParseTests",
            dependencies: ["FeedParse", "FeedModel"],
            exclude: ["Fixtures"]
        ),
    ]
)
