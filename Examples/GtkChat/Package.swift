// swift-tools-version: 6.2
import PackageDescription

// A GTK 4 window bound to the library's ChatClient. Its own package, so the library keeps no system dependency.
let package = Package(
  name: "GtkChat",
  platforms: [.macOS(.v15)],
  products: [.executable(name: "gtk-chat", targets: ["GtkChat"])],
  // Named, so the products resolve whatever the checkout's folder is called (a path package's identity is
  // otherwise its folder name).
  dependencies: [.package(name: "ConversationStore", path: "../..")],
  targets: [
    .systemLibrary(name: "CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
    // What Swift cannot call directly: GObject's macros (g_signal_connect, type checks).
    .target(name: "CGtkShims", dependencies: ["CGtk"]),
    .executableTarget(
      name: "GtkChat",
      dependencies: [
        "CGtk", "CGtkShims",
        .product(name: "ConversationStore", package: "ConversationStore"),
        .product(name: "ConversationTesting", package: "ConversationStore"),
      ],
      path: "Sources/GtkChat",
      swiftSettings: [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
      ]),
  ]
)
