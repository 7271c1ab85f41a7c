import Bitcoin
import HTLC
import Offers
import Transport

extension NodeConfig {
    /// Types and checks the settings of the config file and the command line (which wins
    /// key by key; for a repeatable key its list replaces the file's). The first problem
    /// stops resolution with an error naming the key; nothing else is looked at or done.
    ///
    /// Checks, in order: every key is known (with a suggestion when one is close); no
    /// single-valued key appears twice in one source; each value parses and is in range;
    /// the keys agree with each other; and on mainnet, settings that put funds at risk
    /// (fewer than 2 confirmations, zero-conf above 100,000 sat, a fee floor under
    /// 5 sat/vB) are refused unless `allowUnsafe`.
    public static func resolve(file: [ConfigEntry], overrides: [ConfigEntry], datadir: String,
                               allowUnsafe: Bool) throws(ConfigError) -> NodeConfig {
        for entry in file + overrides {
            guard ConfigKey.named(entry.key) != nil else {
                throw ConfigError(key: entry.key, value: nil, origin: entry.origin,
                                  problem: .unknownKey(suggestion: KeySuggestion.closest(to: entry.key, among: ConfigKey.names)))
            }
        }
        if let entry = file.first(where: { $0.key == "datadir" }) {
            throw ConfigError(key: "datadir", value: entry.value, origin: entry.origin,
                              problem: .invalidValue(problem: "the data directory holds this file, so it cannot name another",
                                                     allowed: "--datadir on the command line only"))
        }
        try checkDuplicates(file)
        try checkDuplicates(overrides)
        var merged: [String: [ConfigEntry]] = [:]
        for entry in file { merged[entry.key, default: []].append(entry) }
        var overridden: Set<String> = []
        for entry in overrides {
            if overridden.insert(entry.key).inserted { merged[entry.key] = [] }
            merged[entry.key]!.append(entry)
        }
        return try ConfigResolver(entries: merged, datadir: datadir, allowUnsafe: allowUnsafe).resolve()
    }

    private static func checkDuplicates(_ entries: [ConfigEntry]) throws(ConfigError) {
        var seen: [String: ConfigEntry] = [:]
        for entry in entries {
            if let first = seen[entry.key], ConfigKey.named(entry.key)?.repeatable == false {
                throw ConfigError(key: entry.key, value: nil, origin: entry.origin, problem: .duplicate(firstOrigin: first.origin))
            }
            seen[entry.key] = entry
        }
    }
}

/// One resolution: reads each key once, typed, with the network's defaults.
private struct ConfigResolver {
    let entries: [String: [ConfigEntry]]
    let datadir: String
    let allowUnsafe: Bool

    func value(_ key: String) -> ConfigValue? {
        guard let entry = entries[key]?.last, let documented = ConfigKey.named(key) else { return nil }
        return ConfigValue(entry: entry, allowed: documented.allowed, secret: key == "bitcoind_rpc_password")
    }

    func resolve() throws(ConfigError) -> NodeConfig {
        let network = try value("network")?.network() ?? .mainnet
        let mainnet = network == .mainnet

        let listen = try value("listen")?.hostPort(ports: 0...65535) ?? NodeConfig.HostPort(host: "127.0.0.1", port: 9737)
        let controlSocket = try value("control_socket")?.path(in: datadir) ?? NodeConfig.path(datadir, NodeConfig.socketFileName)
        if controlSocket.utf8.count > NodeConfig.maxSocketPathBytes {
            let problem = ConfigError.Problem.invalidValue(
                problem: "the socket path is \(controlSocket.utf8.count) bytes, longer than unix sockets allow",
                allowed: "a path of at most \(NodeConfig.maxSocketPathBytes) bytes (set control_socket to a shorter one)")
            throw ConfigError(key: "control_socket", value: controlSocket, origin: value("control_socket")?.entry.origin ?? "default",
                              problem: problem)
        }

        let rpcHost = try value("bitcoind_rpc_host")?.host() ?? "127.0.0.1"
        let defaultPort = BitcoinCoreEndpoint.defaultPort(forChain: BitcoinCoreChain.names(for: network)[0]) ?? 8332
        let rpcPort = try value("bitcoind_rpc_port")?.int(in: 1...65535) ?? defaultPort
        let electrum = try electrumServer()
        // On Electrum the bitcoind_rpc_* keys are unused: none is required.
        let credentials = electrum == nil ? try bitcoindCredentials() : BitcoinCoreCredentials.user("", password: "")

        let lndHost = try value("lnd_rest_host")?.host() ?? "127.0.0.1"
        let lnd = NodeConfig.LNDSettings(
            host: lndHost,
            port: try value("lnd_rest_port")?.int(in: 1...65535) ?? 8080,
            macaroonPath: try required("lnd_macaroon", "give the path of LND's admin.macaroon").path(in: datadir),
            tlsCertificatePath: try lndTLSCertificate(host: lndHost))

        let provider = try providerSettings()
        if provider.enabled, let electrum, !electrum.trusted {
            // The provider settles with the preimage it reads from the claim's witness, and
            // a txid does not cover the witness: a server that is not the operator's could
            // show the claim with the preimage blanked, and the held payment would expire
            // while the client keeps the coins.
            throw mismatch("provider", "1", "a provider reads the preimage from the claim's witness, which an Electrum server "
                + "that is not yours could alter without changing the txid",
                           allowed: "provider=1 only with electrum_trusted=1 (a server following your own node), or chain_backend=bitcoind")
        }
        let confirmations = try value("confirmations")?.int(in: 1...100) ?? (mainnet ? 2 : 1)
        let timeoutRange = (confirmations + TimelockPolicy.providerLockMargin)...TimelockPolicy.maximumHTLCTimeoutBlocks
        let htlcTimeout = try value("htlc_timeout_blocks")?.int(in: 1...TimelockPolicy.maximumHTLCTimeoutBlocks)
            ?? TimelockPolicy.defaultHTLCTimeoutBlocks
        if !timeoutRange.contains(htlcTimeout) {
            throw mismatch("htlc_timeout_blocks", "\(htlcTimeout)",
                           "too short for \(confirmations) confirmations: a provider locks only with confirmations + 36 blocks left",
                           allowed: "\(timeoutRange.lowerBound) to \(timeoutRange.upperBound)")
        }
        let zeroConfAsked = try value("zero_conf")?.bool()
        if zeroConfAsked == true, let electrum, !electrum.trusted {
            throw mismatch("zero_conf", "1", "a zero-conf claim believes an unconfirmed lock on the chain backend's word, and "
                + "the Electrum server is not marked as the operator's own",
                           allowed: "0 with an Electrum server that is not yours, or electrum_trusted=1 if it follows your own node")
        }
        let zeroConf = NodeConfig.ZeroConfPolicy(
            // Off by default on an Electrum server that is not the operator's.
            enabled: zeroConfAsked ?? (!mainnet && (electrum?.trusted ?? true)),
            maxSat: try value("max_zero_conf_sat")?.integer(in: 0...ConfigLimits.maximumSat) ?? NodeConfig.mainnetMaxZeroConfSat)
        let fees = try feePolicy(mainnet: mainnet)
        if provider.enabled { try checkRefundFits(provider, cap: fees.cap) }
        let maxFeePPM = try value("max_fee_ppm")?.integer(in: 0...1_000_000) ?? QuotePolicy.defaultMaxFeePPM

        var extras: [NodeConfig.ExtraProvider] = []
        for entry in entries["extra_provider"] ?? [] {
            extras.append(try ConfigValue(entry: entry, allowed: ConfigKey.named("extra_provider")!.allowed, secret: false)
                .extraProvider())
        }
        let syncSeconds = try value("wallet_sync_seconds")?.int(in: 1...3600) ?? 10

        let config = NodeConfig(
            network: network, datadir: datadir, listen: listen, controlSocket: controlSocket,
            bitcoind: BitcoinCoreEndpoint(host: rpcHost, port: rpcPort), bitcoindCredentials: credentials, lnd: lnd,
            provider: provider, htlcTimeoutBlocks: htlcTimeout, confirmations: confirmations, zeroConf: zeroConf,
            maxFeePPM: maxFeePPM, fees: fees, extraProviders: extras, walletSyncSeconds: syncSeconds, allowUnsafe: allowUnsafe,
            logPeerEvents: try value("log_peer_events")?.bool() ?? false)
        var resolved = config
        resolved.electrum = electrum
        resolved.peerConnectionsPerHost = try value("peer_connections_per_host")?.int(in: 1...1_024) ?? 16
        // Off unless set: the status API shows the node's money to whoever holds the token.
        resolved.statusListen = try value("status_listen")?.hostPort(ports: 0...65535)
        resolved.clientMinConfirmations = try value("client_min_confirmations")?.int(in: 1...100)
            ?? ClientEngineConfiguration.defaultMinimumConfirmations(network)
        resolved.clientFinalityConfirmations = try value("client_finality_confirmations")?.int(in: 1...100)
            ?? ClientEngineConfiguration.defaultFinalityConfirmations(network)
        resolved.lightningReceive = try lightningReceiveSettings()
        resolved.acceptOnchain = try value("accept_onchain")?.bool() ?? true
        resolved.musig2 = try value("musig2")?.bool() ?? true
        resolved.submarine = try submarineSettings(mainnet: mainnet, provider: provider.enabled)
        resolved.pkarr = try pkarrSettings(listen: listen)
        if mainnet && !allowUnsafe { try checkMainnetSafety(resolved) }
        return resolved
    }

    /// `pkarr_relay` URLs, the addresses to publish (`pkarr_address`, else a dialable
    /// `listen` host; required once a relay is set), the TTL and private discovery.
    private func pkarrSettings(listen: NodeConfig.HostPort) throws(ConfigError) -> NodeConfig.PkarrSettings {
        var relays: [PkarrRelayURL] = []
        for entry in entries["pkarr_relay"] ?? [] {
            let setting = ConfigValue(entry: entry, allowed: ConfigKey.named("pkarr_relay")!.allowed, secret: false)
            let text = try setting.nonEmpty()
            do {
                relays.append(try PkarrRelayURL(text))
            } catch {
                throw setting.invalid("\(error)")
            }
        }
        var addresses: [String] = []
        for entry in entries["pkarr_address"] ?? [] {
            let setting = ConfigValue(entry: entry, allowed: ConfigKey.named("pkarr_address")!.allowed, secret: false)
            guard NodeConfig.isPublishable(entry.value) else { throw setting.invalid("not an IP address contacts can dial") }
            addresses.append(entry.value)
        }
        if addresses.isEmpty, NodeConfig.isPublishable(listen.host) { addresses = [listen.host] }
        if !relays.isEmpty, addresses.isEmpty {
            throw mismatch("pkarr_address", nil, "the node listens on \(listen.host), which is no address a contact can dial, "
                + "and pkarr_relay is set: the packet would name no address", allowed: "an IP address of this node, e.g. pkarr_address=192.0.2.7")
        }
        let privateDiscovery = try value("private_discovery")?.bool() ?? false
        if privateDiscovery, relays.isEmpty {
            throw mismatch("private_discovery", "1", "private discovery reads the contacts' descriptors from pkarr relays, and none is set",
                           allowed: "0, or 1 with pkarr_relay")
        }
        return NodeConfig.PkarrSettings(
            relays: relays, addresses: addresses,
            ttlSeconds: UInt32(try value("pkarr_ttl_seconds")?.int(in: 10...86_400) ?? 300),
            privateDiscovery: privateDiscovery,
            discoveryIntervalSeconds: try value("discovery_interval_seconds")?.int(in: 1...86_400) ?? 300)
    }

    /// LND's REST port is TLS unless `lnd_rest_tls=0`, which only a loopback host may use:
    /// the macaroon goes in every request, and in plain HTTP anyone on the path could take it.
    private func lndTLSCertificate(host: String) throws(ConfigError) -> String? {
        let tls = try value("lnd_rest_tls")?.bool() ?? true
        let certificate = try value("lnd_tls_cert")?.path(in: datadir)
        if tls {
            guard let certificate else {
                throw ConfigError(key: "lnd_tls_cert", value: nil, origin: nil,
                                  problem: .missing("give the path of LND's tls.cert (or lnd_rest_tls=0 for plain HTTP on loopback)"))
            }
            return certificate
        }
        if certificate != nil {
            throw mismatch("lnd_tls_cert", certificate, "set together with lnd_rest_tls=0, which turns TLS off",
                           allowed: "remove lnd_tls_cert, or lnd_rest_tls=0")
        }
        guard NodeConfig.isLoopback(host) else {
            throw mismatch("lnd_rest_tls", "0", "plain HTTP to \(host), which is not loopback, would send the macaroon in the clear",
                           allowed: "0 only with a loopback lnd_rest_host (127.0.0.0/8, ::1, localhost); else 1 with lnd_tls_cert")
        }
        return nil
    }

    /// `chain_backend=electrum` and its server: TLS unless `electrum_tls=0`, trusted only
    /// over TLS or on loopback (over plain TCP anyone on the path could show the node a
    /// lock that does not exist, and a zero-conf claim would give the preimage away for it).
    private func electrumServer() throws(ConfigError) -> ElectrumServer? {
        let backend = value("chain_backend")?.entry.value ?? "bitcoind"
        // A server or certificate given without chain_backend=electrum is a forgotten key,
        // not a choice: the node would silently read the chain from Bitcoin Core.
        let electrumKeys = ["electrum_server", "electrum_tls_cert"]
        switch backend {
        case "bitcoind":
            if let stray = electrumKeys.first(where: { value($0) != nil }) {
                throw mismatch(stray, value(stray)?.entry.value, "set while chain_backend is bitcoind, which does not use it",
                               allowed: "chain_backend=electrum to use an Electrum server, or remove \(stray)")
            }
            return nil
        case "electrum":
            break
        default:
            throw mismatch("chain_backend", backend, "not a chain backend this node knows", allowed: "bitcoind or electrum")
        }
        let address = try required("electrum_server", "give the Electrum server as host:port (chain_backend=electrum)")
            .hostPort(ports: 1...65535)
        let tls = try value("electrum_tls")?.bool() ?? true
        let certificate = try value("electrum_tls_cert")?.path(in: datadir)
        if tls && certificate == nil {
            throw ConfigError(key: "electrum_tls_cert", value: nil, origin: nil,
                              problem: .missing("give the PEM file of the Electrum server's certificate or its CA "
                                  + "(the system's CA store is not used), or electrum_tls=0 for plain TCP"))
        }
        if !tls && certificate != nil {
            throw mismatch("electrum_tls_cert", certificate, "set together with electrum_tls=0, which turns TLS off",
                           allowed: "remove electrum_tls_cert, or electrum_tls=1")
        }
        let trusted = try value("electrum_trusted")?.bool() ?? false
        if trusted && !tls && !NodeConfig.isLoopback(address.host) {
            throw mismatch("electrum_trusted", "1", "a server reached over plain TCP at \(address.host), which is not loopback, "
                + "can be impersonated by anyone on the path",
                           allowed: "1 only with electrum_tls=1 or a loopback electrum_server; else 0")
        }
        return ElectrumServer(host: address.host, port: address.port, tlsCertificatePath: tls ? certificate : nil,
                              trusted: trusted)
    }

    private func required(_ key: String, _ hint: String) throws(ConfigError) -> ConfigValue {
        guard let found = value(key) else {
            throw ConfigError(key: key, value: nil, origin: nil, problem: .missing(hint))
        }
        return found
    }

    private func mismatch(_ key: String, _ shown: String?, _ problem: String, allowed: String) -> ConfigError {
        ConfigError(key: key, value: shown, origin: value(key)?.entry.origin ?? "default",
                    problem: .invalidValue(problem: problem, allowed: allowed))
    }

    /// User and password together, or a cookie file, never both.
    private func bitcoindCredentials() throws(ConfigError) -> BitcoinCoreCredentials {
        let user = try value("bitcoind_rpc_user")?.nonEmpty()
        let password = try value("bitcoind_rpc_password")?.nonEmpty()
        let cookie = try value("bitcoind_rpc_cookie")?.path(in: datadir)
        if cookie != nil, user != nil || password != nil {
            throw mismatch("bitcoind_rpc_cookie", nil, "set together with bitcoind_rpc_user/bitcoind_rpc_password",
                           allowed: "either a cookie file or a user and password")
        }
        if let cookie { return .cookieFile(path: cookie) }
        switch (user, password) {
        case (let user?, let password?):
            return .user(user, password: password)
        case (nil, nil):
            throw ConfigError(key: "bitcoind_rpc_cookie", value: nil, origin: nil,
                              problem: .missing("set bitcoind_rpc_cookie, or bitcoind_rpc_user and bitcoind_rpc_password"))
        case (nil, _):
            throw ConfigError(key: "bitcoind_rpc_user", value: nil, origin: nil,
                              problem: .missing("bitcoind_rpc_password is set, so give the user too"))
        case (_, nil):
            throw ConfigError(key: "bitcoind_rpc_password", value: nil, origin: nil,
                              problem: .missing("bitcoind_rpc_user is set, so give the password too"))
        }
    }

    private func providerSettings() throws(ConfigError) -> NodeConfig.ProviderSettings {
        let minimum = try value("min_amount_sat")?.integer(in: 1_000...ConfigLimits.maximumSat) ?? 10_000
        let maximum = try value("max_amount_sat")?.integer(in: 1_000...ConfigLimits.maximumSat) ?? 1_000_000
        if maximum < minimum {
            throw mismatch("max_amount_sat", "\(maximum)", "below min_amount_sat (\(minimum))",
                           allowed: "\(minimum) to \(ConfigLimits.maximumSat)")
        }
        return NodeConfig.ProviderSettings(
            enabled: try value("provider")?.bool() ?? false,
            baseFeeSat: try value("base_fee_sat")?.integer(in: 0...1_000_000) ?? 500,
            feePPM: try value("fee_ppm")?.integer(in: 0...1_000_000) ?? 2_000,
            minAmountSat: minimum, maxAmountSat: maximum,
            quoteLifetimeSeconds: UInt64(try value("quote_lifetime_seconds")?.integer(in: Self.quoteLifetimeRange)
                ?? Int64(ProviderTerms.defaultQuoteLifetimeSeconds)),
            contactsOnly: try value("provider_contacts_only")?.bool() ?? false)
    }

    /// The submarine direction's terms, checked even while it is off (turning it on later
    /// must not meet a bad value). Off by default: paying invoices needs LND's payment
    /// permissions, which a provider that only receives may not have granted.
    private func submarineSettings(mainnet: Bool, provider: Bool) throws(ConfigError) -> NodeConfig.SubmarineSettings {
        let minimum = try value("submarine_min_sat")?.integer(in: 1_000...ConfigLimits.maximumSat) ?? SubmarineTerms.defaultMinAmountSat
        let maximum = try value("submarine_max_sat")?.integer(in: 1_000...ConfigLimits.maximumSat) ?? SubmarineTerms.defaultMaxAmountSat
        if maximum < minimum {
            throw mismatch("submarine_max_sat", "\(maximum)", "below submarine_min_sat (\(minimum))",
                           allowed: "\(minimum) to \(ConfigLimits.maximumSat)")
        }
        let confirmations = try value("submarine_confirmations")?.int(in: 1...100) ?? (mainnet ? 2 : 1)
        let route = try value("submarine_route_cltv_blocks")?.int(in: 0...TimelockPolicy.maximumHTLCTimeoutBlocks)
            ?? SubmarineRules.defaultRouteCLTVBlocks
        let shortest = SubmarineTerms.shortestTimeoutBlocks(requiredConfirmations: confirmations, routeCLTVBlocks: route)
        let timeout = try value("submarine_timeout_blocks")?.int(in: 1...TimelockPolicy.maximumHTLCTimeoutBlocks)
            ?? SubmarineTerms.defaultTimeoutBlocks
        if timeout < shortest {
            throw mismatch("submarine_timeout_blocks", "\(timeout)",
                           "too short for \(confirmations) confirmation(s) and submarine_route_cltv_blocks=\(route): after them, "
                            + "the wait for them (12), the payment's CLTV margin (12), LND's padding (3), the route allowance "
                            + "and an invoice's default final delta (18) must fit",
                           allowed: "\(shortest) to \(TimelockPolicy.maximumHTLCTimeoutBlocks)")
        }
        let settings = NodeConfig.SubmarineSettings(
            enabled: try value("submarine")?.bool() ?? false, minAmountSat: minimum, maxAmountSat: maximum,
            baseFeeSat: try value("submarine_base_fee_sat")?.integer(in: 0...1_000_000) ?? 500,
            feePPM: try value("submarine_fee_ppm")?.integer(in: 0...1_000_000) ?? 2_000,
            confirmations: confirmations, timeoutBlocks: timeout, routeCLTVBlocks: route)
        if settings.enabled && !provider {
            throw mismatch("submarine", "1", "the submarine direction is a provider's", allowed: "submarine=1 only with provider=1")
        }
        return settings
    }

    private func lightningReceiveSettings() throws(ConfigError) -> NodeConfig.LightningReceiveSettings {
        let minimum = try value("lightning_receive_min_sat")?.integer(in: 1...ConfigLimits.maximumSat) ?? 1
        let maximum = try value("lightning_receive_max_sat")?.integer(in: 1...ConfigLimits.maximumSat) ?? 1_000_000
        // Checked even with accept_lightning=0: turning it on later must not meet a bad pair.
        if maximum < minimum {
            throw mismatch("lightning_receive_max_sat", "\(maximum)", "below lightning_receive_min_sat (\(minimum))",
                           allowed: "\(minimum) to \(ConfigLimits.maximumSat)")
        }
        let expiry = try value("lightning_receive_expiry_seconds")?.integer(in: NodeConfig.LightningReceiveSettings.expiryRange)
            ?? NodeConfig.LightningReceiveSettings.defaultExpirySeconds
        return NodeConfig.LightningReceiveSettings(enabled: try value("accept_lightning")?.bool() ?? true,
                                                   minSat: minimum, maxSat: maximum, expirySeconds: expiry)
    }

    /// A provider whose largest swap could not pay its refund at the fee cap would serve
    /// nothing (audit H-4: every lock must hold its refund at the cap plus dust).
    private func checkRefundFits(_ provider: NodeConfig.ProviderSettings, cap: FeeRate) throws(ConfigError) {
        let floor = ProviderTerms(network: .regtest, refundFeeCap: cap).smallestRefundableLockSat
        if provider.maxAmountSat < floor {
            throw mismatch("max_amount_sat", "\(provider.maxAmountSat)",
                           "below \(floor) sat, the smallest lock whose refund at fee_cap_sat_vb (\(Self.satPerVByte(cap.satPerKvB))) leaves more than dust; lower fee_cap_sat_vb or raise max_amount_sat",
                           allowed: "\(floor) to \(ConfigLimits.maximumSat)")
        }
    }

    /// Long enough to read a quote and commit it by hand; at most an hour, so the price
    /// and liquidity it promises are still roughly true.
    static let quoteLifetimeRange: ClosedRange<Int64> = 5...3_600

    private func feePolicy(mainnet: Bool) throws(ConfigError) -> FeeEstimatePolicy {
        let limit: ClosedRange<Int64> = 100...10_000_000
        let floor = try value("fee_floor_sat_vb")?.feeRate(satPerKvB: limit).satPerKvB ?? (mainnet ? 5_000 : 1_000)
        let cap = try value("fee_cap_sat_vb")?.feeRate(satPerKvB: limit).satPerKvB
            ?? FeeEstimatePolicy.default.cap.satPerKvB
        let fallback = try value("fee_fallback_sat_vb")?.feeRate(satPerKvB: limit).satPerKvB ?? 10_000
        if cap < floor {
            throw mismatch("fee_cap_sat_vb", Self.satPerVByte(cap), "below fee_floor_sat_vb (\(Self.satPerVByte(floor)))",
                           allowed: "\(Self.satPerVByte(floor)) to 10000")
        }
        if !(floor...cap).contains(fallback) {
            throw mismatch("fee_fallback_sat_vb", Self.satPerVByte(fallback), "outside the floor and cap",
                           allowed: "\(Self.satPerVByte(floor)) to \(Self.satPerVByte(cap))")
        }
        // Each is within FeeRate's range (at most 10^7 sat/kvB), so these cannot fail.
        return FeeEstimatePolicy(floor: try! FeeRate(satPerKvB: floor), cap: try! FeeRate(satPerKvB: cap),
                                 fallback: try! FeeRate(satPerKvB: fallback))
    }

    private func checkMainnetSafety(_ config: NodeConfig) throws(ConfigError) {
        if config.confirmations < NodeConfig.mainnetMinimumConfirmations {
            throw ConfigError(key: "confirmations", value: "\(config.confirmations)", origin: value("confirmations")?.entry.origin,
                              problem: .unsafe("fewer than \(NodeConfig.mainnetMinimumConfirmations) confirmations lets a one-block reorg undo a lock the node already acted on"))
        }
        if config.submarine.enabled && config.submarine.confirmations < NodeConfig.mainnetMinimumConfirmations {
            throw ConfigError(key: "submarine_confirmations", value: "\(config.submarine.confirmations)",
                              origin: value("submarine_confirmations")?.entry.origin,
                              problem: .unsafe("paying an invoice against a lock with fewer than \(NodeConfig.mainnetMinimumConfirmations) confirmations lets a one-block reorg take the lock back after the payment"))
        }
        if config.clientMinConfirmations < NodeConfig.mainnetMinimumConfirmations {
            throw ConfigError(key: "client_min_confirmations", value: "\(config.clientMinConfirmations)",
                              origin: value("client_min_confirmations")?.entry.origin,
                              problem: .unsafe("claiming from a lock with fewer than \(NodeConfig.mainnetMinimumConfirmations) confirmations lets a one-block reorg undo it after the preimage is out"))
        }
        if config.zeroConf.enabled && config.zeroConf.maxSat > NodeConfig.mainnetMaxZeroConfSat {
            throw ConfigError(key: "max_zero_conf_sat", value: "\(config.zeroConf.maxSat)",
                              origin: value("max_zero_conf_sat")?.entry.origin ?? "default",
                              problem: .unsafe("zero-conf claims above \(NodeConfig.mainnetMaxZeroConfSat) sat can be double-spent by the provider"))
        }
        // Core's RPC is plain HTTP: beyond this host, anyone on the path reads the password
        // and can answer for the node (its blocks, locks and confirmations). CFG-1.
        if config.electrum == nil && !NodeConfig.isLoopback(config.bitcoind.host) {
            throw ConfigError(key: "bitcoind_rpc_host", value: config.bitcoind.host, origin: value("bitcoind_rpc_host")?.entry.origin,
                              problem: .unsafe("Bitcoin Core's RPC is plain HTTP: anyone on the way to that host reads the RPC "
                                  + "password and can answer for your node; reach Core through a tunnel that ends on this host "
                                  + "(SSH -L, stunnel) and set bitcoind_rpc_host=127.0.0.1, or, for a link you already "
                                  + "encrypt (WireGuard), start with --allow-unsafe"))
        }
        if config.fees.floor.satPerKvB < NodeConfig.mainnetMinimumFeeFloorSatPerKvB {
            throw ConfigError(key: "fee_floor_sat_vb", value: Self.satPerVByte(config.fees.floor.satPerKvB),
                              origin: value("fee_floor_sat_vb")?.entry.origin,
                              problem: .unsafe("a fee floor under 5 sat/vB risks claims and refunds that do not confirm before the timeout"))
        }
    }

    /// sat/kvB written as sat/vB (`2500` -> `2.5`).
    static func satPerVByte(_ satPerKvB: Int64) -> String {
        let whole = satPerKvB / 1_000
        var fraction = satPerKvB % 1_000
        guard fraction != 0 else { return "\(whole)" }
        var digits = 3
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        let text = String(fraction)
        return "\(whole)." + String(repeating: "0", count: digits - text.count) + text
    }
}

/// Bitcoin's amount bound, for config ranges.
enum ConfigLimits {
    static let maximumSat: Int64 = 2_100_000_000_000_000
}
