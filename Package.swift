// swift-tools-version:6.0
import Foundation
import PackageDescription

/// `FEEDMERGE_SYSTEM_MALLOC=1 swift build|test --sanitize=thread|address`: the executables
/// without jemalloc, whose allocations would otherwise meet the sanitizer's `free` (the test
/// bundle links the executable target). No effect on a normal build.
/// `FEEDMERGE_FUZZ=1`: the libFuzzer targets in `Fuzz/` exist (built by `scripts/fuzz`); they
/// imply the system allocator. No effect on a normal build.
let fuzzing = ProcessInfo.processInfo.environment["FEEDMERGE_FUZZ"] != nil
let systemMalloc = fuzzing || ProcessInfo.processInfo.environment["FEEDMERGE_SYSTEM_MALLOC"] != nil
let allocator: [Target.Dependency] = systemMalloc ? [] : ["CJemalloc"]
let allocatorSettings: [SwiftSetting] = systemMalloc ? [.define("FEEDMERGE_SYSTEM_MALLOC")] : []

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
        .systemLibrary(
            name: "CLibXSLT",
            pkgConfig: "libexslt",
            providers: [.apt(["libxslt1-dev"])]
        ),
        // LZ4: the state's entries are stored compressed.
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]
        ),
        // libpq: the PostgreSQL store's client.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // libpsl: the Public Suffix List, for the registrable domain of a host (entry ownership).
        .systemLibrary(
            name: "CPSL",
            pkgConfig: "libpsl",
            providers: [.apt(["libpsl-dev"])]
        ),
        // OpenSSL's libcrypto: Ed25519 and SHA-256 for signed requests (Web Bot Auth).
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // Signed requests (Web Bot Auth): keys, RFC 9421 signatures, the key directory.
        .target(name: "RequestSigning", dependencies: ["CLibCrypto"]),
        // Small helpers every layer shares (hashing, trimming, hosts and their registrable domains).
        .target(name: "Basics", dependencies: ["CPSL"]),
        .target(name: "FeedModel"),
        // Linux calls Swift's Glibc module does not show (sync_file_range).
        .systemLibrary(name: "CLinux"),
        // Writing text out: the streaming buffer and its escaping, JSON, atomic files.
        .target(name: "TextOutput", dependencies: ["CLinux", "FeedModel"]),
        .target(name: "XMLTree", dependencies: ["Basics", "CLibXML2"]),
        // The HTML sanitizer: gumbo (WHATWG HTML parsing) as a system library, and the allowlist
        // walk plus its own serializer over gumbo's tree.
        .systemLibrary(
            name: "CGumbo",
            pkgConfig: "gumbo",
            providers: [.apt(["libgumbo-dev"])]
        ),
        .target(name: "HTMLSanitizer", dependencies: ["Basics", "CGumbo", "FeedParse"]),
        .executableTarget(
            name: "sanitize-bench", dependencies: ["CGumbo", "HTMLSanitizer"], path: "Benchmarks/SanitizeBench"),
        .target(name: "FeedParse", dependencies: ["Basics", "FeedModel", "XMLTree"]),
        .target(name: "FeedFetch", dependencies: ["Basics", "CCurl", "FeedModel", "RequestSigning"]),
        // The state's boundary: what a run and a store hand each other, the memory store. No C module.
        .target(name: "FeedState", dependencies: ["Basics", "FeedModel"]),
        // A feed's entries as the one compressed (LZ4) document the stores on a disk or a server keep.
        .target(name: "StateDocument", dependencies: ["CLZ4", "FeedModel", "FeedState"]),
        // The state in one SQLite file.
        .target(name: "SQLiteState", dependencies: ["CSQLite", "FeedModel", "FeedState", "StateDocument"]),
        // The state on a PostgreSQL server, behind FeedState's boundary.
        .target(
            name: "PostgreSQLState", dependencies: ["Basics", "CLibPQ", "FeedModel", "FeedState", "StateDocument"]),
        .target(name: "FeedEmit", dependencies: ["Basics", "FeedModel", "HTMLSanitizer", "TextOutput", "XMLTree"]),
        // The planet page: the timeline as Atom with Planet Venus's vocabulary, through an XSLT theme.
        .target(
            name: "PlanetPage",
            dependencies: [
                "Basics", "CLibXML2", "CLibXSLT", "FeedEmit", "FeedModel", "HTMLSanitizer", "HTMLTemplate", "TextOutput",
            ]),
        .target(
            name: "Subscriptions",
            dependencies: ["Basics", "EntryFilters", "FeedFetch", "FeedModel", "FeedParse", "TextOutput", "XMLTree"]),
        // What a subscription's filters do to its entries (Venus's filter, exclude, sifters, XSLT).
        .target(
            name: "EntryFilters",
            dependencies: ["CLibXML2", "CLibXSLT", "FeedModel", "FeedParse", "HTMLSanitizer", "TextOutput", "XMLTree"]),
        // Planet 2.0's htmltmpl template language: no dependencies.
        .target(name: "HTMLTemplate"),
        // Planet Venus's config.ini, read as Venus reads it.
        .target(name: "VenusConfig", dependencies: ["Basics"]),
        .target(name: "TimelineMerge", dependencies: ["Basics", "FeedModel", "FeedParse"]),
        // What a long-running process tells its operator: log lines, metrics, /healthz.
        .target(name: "Telemetry", dependencies: ["Basics", "FeedModel"]),
        // The WebSub subscriber of workers: subscriptions, the callback, signed deliveries.
        .target(name: "WebSub", dependencies: ["Basics", "FeedFetch", "RequestSigning"]),
        .target(
            name: "Aggregator",
            dependencies: [
                "Basics", "EntryFilters", "FeedModel", "FeedFetch", "FeedParse", "FeedState", "FeedEmit", "Subscriptions",
                "Telemetry", "TimelineMerge", "WebSub",
            ]),
        // The command line: options, the three commands, the run, the reports.
        .target(
            name: "Commands",
            dependencies: [
                "Aggregator", "Basics", "FeedEmit", "FeedFetch", "FeedModel", "FeedParse", "FeedState",
                "HTMLSanitizer", "PlanetPage", "PostgreSQLState", "SQLiteState", "Subscriptions", "Telemetry",
                "TextOutput", "TimelineMerge", "EntryFilters", "VenusConfig", "RequestSigning", "WebSub",
            ]),
        .executableTarget(name: "feedmerge", dependencies: allocator + ["Commands"], swiftSettings: allocatorSettings),
        .executableTarget(
            name: "timeline-bench", dependencies: ["Aggregator", "FeedModel", "TimelineMerge"], path: "Benchmarks/TimelineBench"),
        .executableTarget(
            name: "schedule-sim", dependencies: ["Aggregator", "FeedModel"], path: "Benchmarks/ScheduleSim"),
        .executableTarget(
            name: "pipeline-bench",
            dependencies: [
                "Aggregator", "FeedEmit", "FeedFetch", "FeedModel", "FeedParse", "Subscriptions", "TextOutput",
                "TimelineMerge",
            ] + allocator,
            path: "Benchmarks/PipelineBench", swiftSettings: allocatorSettings),
        // Starts the tests' Python servers on loopback; used by test targets only.
        .target(name: "TestSupport", dependencies: ["Basics"], path: "Tests/TestSupport"),
        .testTarget(
            name: "XMLTreeTests",
            dependencies: ["TestSupport", "XMLTree"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "FeedFetchTests",
            dependencies: ["Basics", "FeedFetch", "TestSupport"],
            exclude: ["Server"]
        ),
        .testTarget(
            name: "AggregatorTests",
            dependencies: [
                "Aggregator", "Basics", "Commands", "FeedParse", "FeedModel", "FeedEmit", "FeedFetch", "FeedState",
                "PlanetPage", "PostgreSQLState", "SQLiteState", "StateDocument", "Subscriptions", "TestSupport",
                "TextOutput", "TimelineMerge", "feedmerge",
            ],
            exclude: ["Server", "Schemas", "Fixtures"]
        ),
        .testTarget(
            name: "FeedEmitTests",
            dependencies: ["FeedEmit", "FeedModel", "FeedParse", "TextOutput"],
            exclude: ["Golden"]
        ),
        .testTarget(name: "VenusConfigTests", dependencies: ["VenusConfig"]),
        .testTarget(name: "RequestSigningTests", dependencies: ["RequestSigning"]),
        .testTarget(name: "WebSubTests", dependencies: ["Basics", "FeedFetch", "RequestSigning", "WebSub"]),
        .testTarget(name: "TelemetryTests", dependencies: ["Telemetry", "TestSupport"]),
        .testTarget(name: "HTMLTemplateTests", dependencies: ["HTMLTemplate", "TestSupport"]),
        .testTarget(name: "EntryFiltersTests", dependencies: ["EntryFilters", "FeedModel", "FeedParse", "TestSupport"]),
        .testTarget(name: "PlanetPageTests", dependencies: ["FeedModel", "HTMLOracle", "PlanetPage", "TextOutput"]),
        .testTarget(
            name: "FeedParseTests",
            dependencies: ["FeedEmit", "FeedParse", "FeedModel", "TestSupport"],
            exclude: ["Fixtures"]
        ),
        // Re-parses sanitized HTML with gumbo as a browser would: the oracle of the sanitizer's
        // tests and its fuzz target.
        .target(name: "HTMLOracle", dependencies: ["Basics", "CGumbo", "HTMLSanitizer"], path: "Tests/HTMLOracle"),
        .testTarget(name: "HTMLSanitizerTests", dependencies: ["CGumbo", "HTMLOracle", "HTMLSanitizer"]),
        // The contract every store keeps, as scenarios parameterised by how a store is opened: what
        // a new store's tests run (`StoreConformanceTests` runs them on the memory, SQLite and
        // PostgreSQL stores).
        .target(name: "StoreConformance", dependencies: ["FeedModel", "FeedState"], path: "Tests/StoreConformance"),
        .testTarget(
            name: "StoreConformanceTests",
            dependencies: [
                "FeedState", "PostgreSQLState", "SQLiteState", "StateDocument", "StoreConformance", "TestSupport",
            ]
        ),
    ]
)

// One libFuzzer target per boundary where untrusted bytes come in (`scripts/fuzz`): an executable
// whose one file defines `LLVMFuzzerTestOneInput`, checking properties, not only "no crash".
if fuzzing {
    let fuzzTargets: [(name: String, folder: String, dependencies: [Target.Dependency])] = [
        ("fuzz-parse", "Parse", ["FeedEmit", "FeedModel", "FeedParse", "TextOutput", "TimelineMerge"]),
        ("fuzz-dates", "Dates", ["FeedModel", "FeedParse"]),
        ("fuzz-opml", "OPML", ["Subscriptions"]),
        ("fuzz-state", "State", ["Basics", "FeedModel", "FeedParse", "FeedState", "StateDocument"]),
        ("fuzz-links", "Links", ["FeedParse", "HTMLSanitizer"]),
        ("fuzz-sanitize", "Sanitize", ["HTMLOracle", "HTMLSanitizer"]),
        ("fuzz-template", "Template", ["HTMLTemplate"]),
    ]
    for target in fuzzTargets {
        package.targets.append(
            .executableTarget(name: target.name, dependencies: target.dependencies, path: "Fuzz/\(target.folder)"))
    }
}
