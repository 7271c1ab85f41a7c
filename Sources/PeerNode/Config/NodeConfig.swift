import Bitcoin
import HTLC
import Offers
import Transport

/// The node's typed configuration: what `NodeConfig.resolve` makes of the config file
/// and the command line once every value has been checked. Holding one means the daemon
/// can start without finding a bad setting half-way.
///
/// Not `CustomStringConvertible`: it holds the RPC password, which must never be printed.
public struct NodeConfig: Sendable, Equatable {
    /// `host:port`.
    public struct HostPort: Sendable, Equatable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    public struct LNDSettings: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var macaroonPath: String
        /// LND's `tls.cert`, the only certificate its REST port is trusted with (read again
        /// at every connection); nil: plain HTTP, allowed only on loopback (`lnd_rest_tls=0`).
        public var tlsCertificatePath: String?

        public init(host: String, port: Int, macaroonPath: String, tlsCertificatePath: String? = nil) {
            self.host = host
            self.port = port
            self.macaroonPath = macaroonPath
            self.tlsCertificatePath = tlsCertificatePath
        }

        public var url: String { "\(tlsCertificatePath == nil ? "http" : "https")://\(HostPort(host: host, port: port))" }
    }

    public struct ProviderSettings: Sendable, Equatable {
        public var enabled: Bool
        public var baseFeeSat: Int64
        public var feePPM: Int64
        public var minAmountSat: Int64
        public var maxAmountSat: Int64
        /// How long a quote may be committed after it is issued (single use either way).
        public var quoteLifetimeSeconds: UInt64
        /// Serve saved contacts only: strangers cannot even ask for unpaid accepts (audit M-5).
        public var contactsOnly: Bool

        public init(enabled: Bool, baseFeeSat: Int64, feePPM: Int64, minAmountSat: Int64, maxAmountSat: Int64,
                    quoteLifetimeSeconds: UInt64 = ProviderTerms.defaultQuoteLifetimeSeconds, contactsOnly: Bool = false) {
            self.contactsOnly = contactsOnly
            self.enabled = enabled
            self.baseFeeSat = baseFeeSat
            self.feePPM = feePPM
            self.minAmountSat = minAmountSat
            self.maxAmountSat = maxAmountSat
            self.quoteLifetimeSeconds = quoteLifetimeSeconds
        }
    }

    /// The provider's `onchain_to_ln` (submarine) direction: off unless `submarine=1`.
    public struct SubmarineSettings: Sendable, Equatable {
        public var enabled: Bool
        public var minAmountSat: Int64
        public var maxAmountSat: Int64
        public var baseFeeSat: Int64
        public var feePPM: Int64
        public var confirmations: Int
        public var timeoutBlocks: Int
        /// `submarine_route_cltv_blocks`: what `SubmarineRules` keeps free for the route's hops.
        public var routeCLTVBlocks: Int

        public init(enabled: Bool = false, minAmountSat: Int64 = SubmarineTerms.defaultMinAmountSat,
                    maxAmountSat: Int64 = SubmarineTerms.defaultMaxAmountSat, baseFeeSat: Int64 = 500, feePPM: Int64 = 2_000,
                    confirmations: Int = 1, timeoutBlocks: Int = SubmarineTerms.defaultTimeoutBlocks,
                    routeCLTVBlocks: Int = SubmarineRules.defaultRouteCLTVBlocks) {
            self.enabled = enabled
            self.minAmountSat = minAmountSat
            self.maxAmountSat = maxAmountSat
            self.baseFeeSat = baseFeeSat
            self.feePPM = feePPM
            self.confirmations = confirmations
            self.timeoutBlocks = timeoutBlocks
            self.routeCLTVBlocks = routeCLTVBlocks
        }

        /// The desk's terms for the direction; nil when it is off.
        public func terms() throws(OffersError) -> SubmarineTerms? {
            guard enabled else { return nil }
            return try SubmarineTerms(feeModel: FeeModel(baseFeeSat: baseFeeSat, feePPM: feePPM), minAmountSat: minAmountSat,
                                      maxAmountSat: maxAmountSat, requiredConfirmations: confirmations,
                                      htlcTimeoutBlocks: timeoutBlocks, routeCLTVBlocks: routeCLTVBlocks)
        }
    }

    /// Claiming from an unconfirmed lock: only when enabled, and only up to `maxSat`.
    public struct ZeroConfPolicy: Sendable, Equatable {
        public var enabled: Bool
        public var maxSat: Int64

        public init(enabled: Bool, maxSat: Int64) {
            self.enabled = enabled
            self.maxSat = maxSat
        }

        /// Whether a swap of `amountSat` may be claimed before its lock confirms.
        public func allows(amountSat: Int64) -> Bool { enabled && amountSat <= maxSat }
    }

    /// Lightning payments from saved contacts (`accept_lightning`,
    /// `lightning_receive_min_sat`, `lightning_receive_max_sat`,
    /// `lightning_receive_expiry_seconds`): the node answers their InvoiceRequests for
    /// amounts in `minSat...maxSat` with an invoice of its LND, payable for `expirySeconds`.
    public struct LightningReceiveSettings: Sendable, Equatable {
        /// An hour: a payer paying through a submarine swap needs the invoice valid until its
        /// lock has the provider's confirmations at 10-minute blocks plus 30 minutes (up to
        /// 3 confirmations); short enough that unpaid invoices do not pile up in LND.
        public static let defaultExpirySeconds: Int64 = 3_600
        /// 2 minutes to a day: a payer refuses an invoice with less than a minute left.
        public static let expiryRange: ClosedRange<Int64> = 120...86_400

        public var enabled: Bool
        public var minSat: Int64
        public var maxSat: Int64
        public var expirySeconds: Int64

        public init(enabled: Bool = true, minSat: Int64 = 1, maxSat: Int64 = 1_000_000,
                    expirySeconds: Int64 = defaultExpirySeconds) {
            self.enabled = enabled
            self.minSat = minSat
            self.maxSat = maxSat
            self.expirySeconds = expirySeconds
        }
    }

    /// A provider to probe besides the contacts (`extra_provider=<pubky>@host:port`).
    public struct ExtraProvider: Sendable, Equatable {
        public var pubky: Pubky
        public var host: String
        public var port: Int

        public init(pubky: Pubky, host: String, port: Int) {
            self.pubky = pubky
            self.host = host
            self.port = port
        }
    }

    public var network: Network
    public var datadir: String
    public var listen: HostPort
    public var controlSocket: String
    public var bitcoind: BitcoinCoreEndpoint
    /// `chain_backend=electrum`: the Electrum server the node reads the chain from; nil
    /// reads it from Bitcoin Core (`bitcoind`).
    public var electrum: ElectrumServer?
    public var bitcoindCredentials: BitcoinCoreCredentials
    public var lnd: LNDSettings
    public var provider: ProviderSettings
    public var htlcTimeoutBlocks: Int
    public var confirmations: Int
    public var zeroConf: ZeroConfPolicy
    /// The client's cap on a provider's fees (service fee + its on-chain fee), parts per
    /// million of the amount locked; a dearer provider is skipped with the reason.
    public var maxFeePPM: Int64
    public var fees: FeeEstimatePolicy
    public var extraProviders: [ExtraProvider]
    public var walletSyncSeconds: Int
    /// `--allow-unsafe` was given (and was needed, or not).
    public var allowUnsafe: Bool
    /// Peer-layer events (connections refused or evicted by a budget, failed handshakes,
    /// peers closed for protocol errors) go to the daemon's log. Off by default: under a
    /// flood they are one line per connection.
    public var logPeerEvents = false
    /// Inbound connections one IP address may hold; its network group may hold twice as
    /// many (at least the default 32). Raised only where many honest nodes share one
    /// address, as every daemon of the regtest runner does on 127.0.0.1.
    public var peerConnectionsPerHost = 16
    /// Where the read-only status API (`StatusServer`: JSON, /metrics, the dashboard)
    /// listens; nil (the default) serves none. A non-loopback host is the operator's
    /// explicit choice, and the daemon warns about it at start.
    public var statusListen: HostPort?
    /// Whether and within what amounts contacts may ask this node for an invoice.
    public var lightningReceive = LightningReceiveSettings()
    /// Whether the node takes on-chain payments (`accept_onchain`): its `Endpoints` list an
    /// address of its wallet. Off, a payer sees the Lightning entry only (or, with
    /// `accept_lightning=0` too, is told the node takes no payments).
    public var acceptOnchain = true
    /// Cooperative (MuSig2 key-path) spends (`musig2`, on by default): a provider lists the
    /// `musig2` feature and co-signs reverse claims and submarine refunds, and asks its
    /// submarine clients to co-sign its claims; a client takes part with providers whose
    /// offers list it. Off: neither, and every claim and refund takes the script path.
    public var musig2 = true
    /// The provider's submarine direction (`submarine=1` and its `submarine_*` terms).
    public var submarine = SubmarineSettings()
    /// pkarr publishing and resolving (`pkarr_*`, `private_discovery`); off without a relay.
    public var pkarr = PkarrSettings()
    /// The fewest lock confirmations the client waits for before claiming, whatever a
    /// provider quotes (audit L-2); an allowed zero-conf claim waits for none.
    /// `client_min_confirmations`: 2 on mainnet, 1 elsewhere.
    public var clientMinConfirmations = 1
    /// Confirmations of its claim after which the client calls a swap final (audit L-1).
    /// Until then it keeps watching the claim and broadcasts it again if a reorg drops it,
    /// which matters once the lock's timeout has passed: an unconfirmed claim then races
    /// the provider's refund. `pay` still returns at the first confirmation.
    /// `client_finality_confirmations`: 6 on mainnet, 1 elsewhere.
    public var clientFinalityConfirmations = 1

    /// Whether the chain backend is the operator's own: Bitcoin Core always is; an
    /// Electrum server only with `electrum_trusted=1`. Zero-conf claims need it, because
    /// an unconfirmed lock is believed on the backend's word alone.
    public var chainBackendIsOwn: Bool { electrum?.trusted ?? true }
    /// Whether every broadcast also goes through LND's wallet (`PublishTransaction`): on
    /// an Electrum server the operator does not run, which could swallow a claim.
    public var broadcastsThroughLND: Bool { !chainBackendIsOwn }

    // MARK: files in the data directory

    public static let configFileName = "peernode.conf"
    public static let seedFileName = "seed"
    public static let storeFileName = "peernode.db"
    public static let socketFileName = "peernode.sock"

    public var configFile: String { Self.path(datadir, Self.configFileName) }
    public var seedFile: String { Self.path(datadir, Self.seedFileName) }
    public var storeFile: String { Self.path(datadir, Self.storeFileName) }

    /// `name` inside `directory`, unless `name` is already absolute.
    public static func path(_ directory: String, _ name: String) -> String {
        if name.hasPrefix("/") { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The longest unix socket path the kernel takes (`sun_path` is 108 bytes with its NUL).
    public static let maxSocketPathBytes = 107
    /// Mainnet limits past which `--allow-unsafe` is needed.
    public static let mainnetMinimumConfirmations = 2
    public static let mainnetMaxZeroConfSat: Int64 = 100_000
    public static let mainnetMinimumFeeFloorSatPerKvB: Int64 = 5_000
}

extension NodeConfig {
    /// 127.0.0.0/8, ::1 or `localhost`: where plain HTTP never leaves the machine.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
