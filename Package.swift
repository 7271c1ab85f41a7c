// swift-tools-version:6.0
// peernode: a peer-to-peer Lightning-to-on-chain swap node.
// Layers point one way: C shims -> Bitcoin -> (HTLC, Transport, Lightning) -> Offers -> PeerNode.
import PackageDescription

let package = Package(
    name: "peernode",
    products: [
        .library(name: "Bitcoin", targets: ["Bitcoin"]),
    ],
    targets: [
        // System-library shims: a module map and one header each, nothing else.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CSecp256k1", pkgConfig: "libsecp256k1",
                       providers: [.apt(["libsecp256k1-dev"])]),
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv",
                       providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2",
                       providers: [.apt(["libargon2-dev"])]),

        // Declarations only: libbitcoinkernel.so is opened with dlopen, never linked.
        .systemLibrary(name: "CBitcoinKernel"),

        .target(name: "Bitcoin", dependencies: ["CSodium", "CSecp256k1", "CBitcoinKernel"]),
        .target(name: "Transport", dependencies: ["CSodium", "CLibUV", "COpenSSL", "CArgon2", "Bitcoin"]),
        .target(name: "HTLC", dependencies: ["Bitcoin"]),
        .target(name: "Lightning", dependencies: ["Bitcoin", "Transport"]),
        .target(name: "Regtest", dependencies: ["Bitcoin", "Lightning", "Transport"]),
        .target(name: "Offers", dependencies: ["Bitcoin", "HTLC", "Transport"]),
        .target(name: "PeerNode", dependencies: ["Bitcoin", "HTLC", "Transport", "Lightning", "Offers", "CSQLite"]),

        // The regtest hub: Bitcoin Core's JSON-RPC and LND REST on loopback ports.
        .executableTarget(name: "peernode-regtest", dependencies: ["Regtest", "Transport"], path: "Sources/PeerNodeRegtest"),
        // The node: `peernode init|run` and the commands that talk to the daemon's socket.
        // Swift's runtime is linked in statically: every command is a process of its own, and
        // binding the shared runtime's symbols at start-up cost more CPU than the command's work
        // (docs/PERFORMANCE.md, "The CLI's start-up").
        .executableTarget(name: "peernode", dependencies: ["PeerNode", "Transport", "Bitcoin", "Lightning", "Offers", "HTLC"],
                          path: "Sources/PeerNodeCLI", linkerSettings: [.unsafeFlags(["-static-stdlib"])]),
        // The hostile-peer kit: a scripted client that cheats a provider daemon on purpose
        // (a retired contract, non-standard claims mined out of band, a preimage pushed
        // after the refund). It links the libraries so it speaks the real protocol; the
        // scenario runner drives it as a process.
        .executableTarget(name: "peernode-adversary",
                          dependencies: ["PeerNode", "Offers", "HTLC", "Transport", "Bitcoin", "Lightning"],
                          path: "Sources/PeerNodeAdversary"),
        // Transport benchmarks (release build): `make bench`.
        .executableTarget(name: "peernode-bench", dependencies: ["Transport", "CSodium", "Offers", "Regtest"], path: "Sources/PeerNodeBench"),
        // The demo and scenario runner: starts the hub and peernode daemons as processes and
        // drives them through their command lines, so it depends on no library: `make demo`.
        .executableTarget(name: "peernode-testnet", path: "testnet", exclude: ["README.md"]),

        // Shared by the test targets only: locating Tests/Data/vectors, the kernel for tests.
        .target(name: "TestSupport", dependencies: ["Bitcoin", "Transport", "Regtest"]),

        .testTarget(name: "BitcoinTests", dependencies: ["Bitcoin", "TestSupport"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "COpenSSL", "TestSupport"]),
        .testTarget(name: "HTLCTests", dependencies: ["HTLC", "Bitcoin", "TestSupport"]),
        .testTarget(name: "LightningTests", dependencies: ["Lightning", "Bitcoin", "Transport", "TestSupport"]),
        .testTarget(name: "RegtestTests", dependencies: ["Regtest", "Bitcoin", "Lightning", "Transport", "TestSupport", "PeerNode"]),
        .testTarget(name: "OffersTests", dependencies: ["Offers", "Transport", "Bitcoin", "HTLC", "TestSupport"]),
        .testTarget(name: "PeerNodeTests", dependencies: ["PeerNode", "Bitcoin", "HTLC", "Transport", "Lightning", "Offers", "Regtest", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
