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
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CJemalloc",
            pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"])]
        ),
        .target(name: "FeedModel"),
        .target(name: "FeedState", dependencies: ["CSQLite", "FeedModel"]),
        .target(name: "FeedFetch", dependencies: ["CCurl", "FeedModel"]),
        .target(name: "XMLTree", dependencies: ["CLibXML2"]),
        .target(name: "FeedParse", dependencies: ["FeedModel", "XMLTree"]),
        // Linux calls Swift's Glibc module does not show (sync_file_range).
        .systemLibrary(name: "CLinux"),
        .target(name: "FeedEmit", dependencies: ["CLinux", "FeedModel"]),
        .target(
            name: "Aggregator",
            dependencies: ["FeedModel", "FeedFetch", "FeedParse", "FeedState", "FeedEmit", "XMLTree"]),
        .executableTarget(
            name: "feedmerge",
            dependencies: ["CJemalloc", "FeedModel", "FeedParse", "FeedFetch", "FeedEmit", "FeedState", "Aggregator"]),
        .executableTarget(
            name: "timeline-bench", dependencies: ["Aggregator", "FeedModel"], path: "Benchmarks/TimelineBench"),
        .executableTarget(
            name: "pipeline-bench",
            dependencies: ["Aggregator", "CJemalloc", "FeedEmit", "FeedFetch", "FeedModel", "FeedParse"],
            path: "Benchmarks/PipelineBench"),
        // Starts the tests' Python servers on loopback; used by test targets only.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "XMLTreeTests",
            dependencies: ["XMLTree"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "FeedFetchTests",
            dependencies: ["FeedFetch", "TestSupport"],
            exclude: ["Server"]
        ),
        .testTarget(
            name: "AggregatorTests",
            dependencies: [
                "Aggregator", "FeedParse", "FeedModel", "FeedEmit", "FeedFetch", "FeedState", "TestSupport",
                "feedmerge",
            ],
            exclude: ["Server", "Schemas", "Fixtures"]
        ),
        .testTarget(
            name: "FeedEmitTests",
            dependencies: ["FeedEmit", "FeedModel", "FeedParse"],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "FeedParseTests",
            dependencies: ["FeedParse", "FeedModel"],
            exclude: ["Fixtures"]
        ),
    ]
)
