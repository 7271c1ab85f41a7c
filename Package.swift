// swift-tools-version:6.0
// peernode: a peer-to-peer Lightning-to-on-chain swap node.
// Layers point one way: C shims -> Bitcoin -> (HTLC, Transport, Lightning) -> Offers -> PeerNode.
import PackageDescription

/// The C libraries' static archives (`lib<name>.a`, which Debian's -dev packages ship), for
/// the linker. Every command is a process of its own, and the loader binding the shared
/// libraries' symbols at each start (OpenSSL and SQLite are built with BIND_NOW) cost a
/// command more CPU than its own work (docs/PERFORMANCE.md, "The C libraries linked
/// statically"). A security update of one of them takes a rebuild, as with Bitcoin Core's
/// and LND's release binaries. The flags come after every object file on the link line, so
/// the order of the archives matters only between them: libssl before libcrypto.
///
/// libsodium stays a shared library: its archive carries its own Argon2 under libargon2's
/// names (`argon2_hash` with one parameter fewer), which the shared library keeps hidden;
/// statically, whichever archive came first on the line would supply the recovery file's
/// hash.
func staticArchives(_ names: String...) -> [LinkerSetting] {
    [.unsafeFlags(names.flatMap { ["-Xlinker", "-l:lib\($0).a"] })]
}

let package = Package(
    name: "peernode",
    products: [
        .library(name: "Bitcoin", targets: ["Bitcoin"]),
    ],
    targets: [
        // System-library shims: a module map and one header each, nothing else. The headers
        // are in the compiler's default path; the libraries are linked from their static
        // archives by the targets that use them (`staticArchives` below), so no module map
        // names a library to link.
        .systemLibrary(name: "CSodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CSecp256k1", providers: [.apt(["libsecp256k1-dev"])]),
        .systemLibrary(name: "CLibUV", providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CArgon2", providers: [.apt(["libargon2-dev"])]),

        // Declarations only: libbitcoinkernel.so is opened with dlopen, never linked.
        .systemLibrary(name: "CBitcoinKernel"),

        .target(name: "Bitcoin", dependencies: ["CSodium", "CSecp256k1", "CBitcoinKernel"],
                linkerSettings: staticArchives("secp256k1") + [.linkedLibrary("sodium")]),
        .target(name: "Transport", dependencies: ["CSodium", "CLibUV", "COpenSSL", "CArgon2", "Bitcoin"],
                linkerSettings: staticArchives("ssl", "crypto", "uv_a", "argon2") + [.linkedLibrary("sodium")]),
        .target(name: "HTLC", dependencies: ["Bitcoin"]),
        .target(name: "Lightning", dependencies: ["Bitcoin", "Transport"]),
        .target(name: "Regtest", dependencies: ["Bitcoin", "Lightning", "Transport"]),
        .target(name: "Offers", dependencies: ["Bitcoin", "HTLC", "Transport"]),
        .target(name: "PeerNode", dependencies: ["Bitcoin", "HTLC", "Transport", "Lightning", "Offers", "CSQLite"],
                linkerSettings: staticArchives("sqlite3")),

        // The regtest hub: Bitcoin Core's JSON-RPC and LND REST on loopback ports.
        .executableTarget(name: "peernode-regtest", dependencies: ["Regtest", "Transport"], path: "Sources/PeerNodeRegtest"),
        // The node: `peernode init|run` and the commands that talk to the daemon's socket.
        // Every command is a process of its own, so what the loader does at each start counts
        // (docs/PERFORMANCE.md, "The CLI's start-up" and "A command without tasks"):
        // - Swift's runtime is linked in statically: binding the shared runtime's symbols cost
        //   more CPU than the command's work;
        // - lld packs the executable's 59,000 relative relocations (it stays position
        //   independent) into RELR, a few kilobytes the loader applies in a tight loop instead
        //   of 1.4 MB of entries;
        // - the executable exports no symbols (the static runtime's link file asks for all):
        //   nothing loads against it, and the runtime's start-up `dladdr` scans that table.
        .executableTarget(name: "peernode", dependencies: ["PeerNode", "Transport", "Bitcoin", "Lightning", "Offers", "HTLC"],
                          path: "Sources/PeerNodeCLI",
                          linkerSettings: [.unsafeFlags(["-static-stdlib", "-use-ld=lld",
                                                         "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                                         "-Xlinker", "--no-export-dynamic"])]),
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
