// swift-tools-version: 6.2
import PackageDescription

let strictness: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "ConversationStore",
  // Synchronization's Mutex and Atomic set the floor on Apple platforms.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "ConversationState", targets: ["ConversationState"]),
    .library(name: "Reducers", targets: ["Reducers"]),
    .library(name: "ConversationStore", targets: ["ConversationStore"]),
    .library(name: "Persistence", targets: ["Persistence"]),
    .library(name: "ConversationTesting", targets: ["ConversationTesting"]),
    .library(name: "ServerSentEvents", targets: ["ServerSentEvents"]),
    .library(name: "ChatHTTP", targets: ["ChatHTTP"]),
    .library(name: "ChatAGUI", targets: ["ChatAGUI"]),
    .library(name: "ChatAISDK", targets: ["ChatAISDK"]),
    .library(name: "ChatOpenAI", targets: ["ChatOpenAI"]),
    .executable(name: "fixtures", targets: ["FixturesCommand"]),
    .executable(name: "benchmarks", targets: ["Benchmarks"]),
    .executable(name: "persistence-stress", targets: ["PersistenceStress"]),
    .executable(name: "client-crash", targets: ["ClientCrash"]),
    .executable(name: "demo", targets: ["Demo"]),
  ],
  targets: [
    .target(name: "ConversationState", swiftSettings: strictness),
    .target(name: "Reducers", dependencies: ["ConversationState"], swiftSettings: strictness),
    .target(
      name: "ConversationStore", dependencies: ["ConversationState", "Reducers", "Persistence"],
      swiftSettings: strictness),
    .target(name: "Persistence", dependencies: ["ConversationState", "CSQLite"], swiftSettings: strictness),
    // The system's SQLite holds the message archive and its search index (Docs/DESIGN.md says why).
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
    .target(
      name: "ConversationTesting",
      dependencies: ["ConversationState", "Reducers", "ConversationStore", "ConversationFixtures"],
      swiftSettings: strictness),
    .target(name: "ConversationFixtures", dependencies: ["ConversationState", "Reducers"], swiftSettings: strictness),
    .target(name: "ServerSentEvents", swiftSettings: strictness),
    .target(name: "ChatHTTP", dependencies: ["ConversationStore", "ServerSentEvents"], swiftSettings: strictness),
    .target(
      name: "ChatAGUI", dependencies: ["ConversationState", "ConversationStore", "ChatHTTP", "ServerSentEvents"],
      swiftSettings: strictness),
    .target(
      name: "ChatAISDK", dependencies: ["ConversationState", "ConversationStore", "ChatHTTP", "ServerSentEvents"],
      swiftSettings: strictness),
    .testTarget(
      name: "ChatAISDKTests",
      dependencies: [
        "ChatAISDK", "ChatHTTP", "ConversationStore", "ConversationTesting", "ProducerSupport", "ServerSentEvents",
      ],
      swiftSettings: strictness),
    .target(
      name: "ChatOpenAI", dependencies: ["ConversationState", "ConversationStore", "ChatHTTP", "ServerSentEvents"],
      swiftSettings: strictness),
    .testTarget(
      name: "ChatOpenAITests",
      dependencies: [
        "ChatOpenAI", "ChatHTTP", "ConversationStore", "ConversationTesting", "ProducerSupport", "ServerSentEvents",
      ],
      exclude: ["ResponsesServer"], swiftSettings: strictness),
    .testTarget(
      name: "ChatAGUITests",
      dependencies: ["ChatAGUI", "ConversationStore", "ConversationTesting", "ProducerSupport", "ServerSentEvents"],
      exclude: ["Conformance"], swiftSettings: strictness),
    .target(
      name: "ProducerSupport", dependencies: ["ConversationState", "ConversationStore", "ConversationTesting"],
      path: "Tests/ProducerSupport", swiftSettings: strictness),
    .testTarget(
      name: "ChatHTTPTests",
      dependencies: ["ChatHTTP", "ConversationStore", "ConversationTesting", "ServerSentEvents"],
      exclude: ["ReferenceServer", "MisbehavingServer", "ServerSupport"], swiftSettings: strictness),
    .testTarget(
      name: "ServerSentEventsTests", dependencies: ["ServerSentEvents", "ConversationTesting"],
      exclude: ["Conformance"],
      swiftSettings: strictness),
    .executableTarget(
      name: "ClientCrash", dependencies: ["ConversationStore", "ConversationTesting"], swiftSettings: strictness),
    .executableTarget(
      name: "PersistenceStress", dependencies: ["ConversationState", "Persistence", "ConversationTesting"],
      swiftSettings: strictness),
    .testTarget(
      name: "PersistenceTests",
      dependencies: [
        "ConversationState", "Reducers", "ConversationStore", "Persistence", "ConversationTesting", "PersistenceStress",
      ],
      swiftSettings: strictness),
    .executableTarget(
      name: "Demo",
      dependencies: [
        "ConversationStore", "ConversationTesting", "ChatHTTP", "ChatAGUI", "ChatAISDK", "ChatOpenAI",
        "ServerSentEvents",
      ],
      swiftSettings: strictness),
    .testTarget(
      name: "DemoTests", dependencies: ["Demo", "ChatOpenAI", "ConversationStore", "ConversationTesting"],
      swiftSettings: strictness),
    .executableTarget(name: "FixturesCommand", dependencies: ["ConversationFixtures"], swiftSettings: strictness),
    .executableTarget(
      name: "Benchmarks",
      dependencies: [
        "ConversationState", "Reducers", "ConversationStore", "Persistence", "ServerSentEvents", "ChatHTTP",
        "ChatAGUI", "ChatAISDK", "ChatOpenAI", "ConversationTesting",
      ],
      swiftSettings: strictness + [.unsafeFlags(["-cross-module-optimization"])]),
    .testTarget(
      name: "ConversationStateTests", dependencies: ["ConversationState", "ConversationTesting"],
      exclude: ["Conformance"], swiftSettings: strictness),
    .testTarget(
      name: "ReducersTests", dependencies: ["ConversationState", "Reducers", "ConversationTesting"],
      swiftSettings: strictness),
    .testTarget(
      name: "ConversationStoreTests", dependencies: ["ConversationStore", "ConversationTesting", "ClientCrash"],
      swiftSettings: strictness),
    .testTarget(
      name: "ConversationTestingTests",
      dependencies: ["ConversationState", "Reducers", "ConversationTesting", "ConversationFixtures"],
      swiftSettings: strictness),
  ]
)
