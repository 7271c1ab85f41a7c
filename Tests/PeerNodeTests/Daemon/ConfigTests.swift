import Bitcoin
import HTLC
import Offers
import PeerNode
import Transport
import XCTest

/// The config file and command line as `NodeConfig.resolve` reads them: every key's good
/// and bad values, defaults per network, unknown keys with suggestions, duplicates, the
/// cross-key rules and the mainnet safety guard.
final class ConfigTests: XCTestCase {
    static let datadir = "/var/lib/peernode"
    static let pubky = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 7, count: 32))).pubky.z32
    /// The least a regtest node needs: credentials and a macaroon.
    static let base = ["network=regtest", "bitcoind_rpc_user=u", "bitcoind_rpc_password=secret-pw", "lnd_macaroon=admin.macaroon",
                       "lnd_tls_cert=tls.cert"]

    /// The base config with `line` replacing the base's line for the same key, last.
    private func with(_ line: String) -> [String] {
        let key = line.prefix { $0 != "=" }
        return Self.base.filter { $0.prefix { $0 != "=" } != key } + [line]
    }

    private func resolve(_ lines: [String], overrides: [String] = [], allowUnsafe: Bool = false) throws -> NodeConfig {
        let file = try ConfigFileParser.parse(lines.joined(separator: "\n"), fileName: "peernode.conf")
        return try NodeConfig.resolve(file: file, overrides: try ConfigFileParser.parseOverrides(overrides),
                                      datadir: Self.datadir, allowUnsafe: allowUnsafe)
    }

    private func failure(_ lines: [String], overrides: [String] = [], allowUnsafe: Bool = false,
                         file: StaticString = #filePath, line: UInt = #line) -> ConfigError? {
        do {
            _ = try resolve(lines, overrides: overrides, allowUnsafe: allowUnsafe)
            XCTFail("accepted \(lines) \(overrides)", file: file, line: line)
            return nil
        } catch let error as ConfigError {
            return error
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
            return nil
        }
    }

    // MARK: defaults

    /// Issue 14: the template wrote descriptions as values ("bitcoind_rpc_port=8332 mainnet,
    /// 18332 testnet, ..."), so uncommenting a line stopped startup. Each line that shows a
    /// default, uncommented alone, must start (placeholders of keys with no default aside).
    func testEveryTemplateDefaultLineStartsOnceUncommented() throws {
        let placeholders: Set<String> = ["bitcoind_rpc_user", "bitcoind_rpc_password", "bitcoind_rpc_cookie", "lnd_macaroon", "lnd_tls_cert",
                                         "extra_provider", "electrum_server", "electrum_tls_cert", "pkarr_relay"]
        for network in [Network.mainnet, .testnet, .signet, .regtest] {
            let lines = ConfigTemplate.text(network: network).split(separator: "\n").map(String.init)
            var tried = 0
            for line in lines where line.hasPrefix("#") && line.contains("=") && !line.hasPrefix("# ") {
                let uncommented = String(line.dropFirst())
                let key = String(uncommented.prefix { $0 != "=" })
                guard !placeholders.contains(key) else { continue }
                tried += 1
                let file = lines.filter { $0.hasPrefix("network=") } + Self.base.dropFirst() + [uncommented]
                XCTAssertNoThrow(try resolve(file), "\(network): \(uncommented)")
            }
            XCTAssertGreaterThan(tried, 20, "\(network): the template shows the defaults")
        }
    }

    func testConfigDefaultsOnRegtest() throws {
        let config = try resolve(Self.base)
        XCTAssertEqual(config.network, .regtest)
        XCTAssertEqual(config.listen, NodeConfig.HostPort(host: "127.0.0.1", port: 9737))
        XCTAssertEqual(config.controlSocket, "/var/lib/peernode/peernode.sock")
        XCTAssertEqual(config.bitcoind.url, "http://127.0.0.1:18443/")
        XCTAssertEqual(config.bitcoindCredentials, .user("u", password: "secret-pw"))
        XCTAssertEqual(config.lnd, NodeConfig.LNDSettings(host: "127.0.0.1", port: 8080, macaroonPath: "/var/lib/peernode/admin.macaroon",
                                                          tlsCertificatePath: "/var/lib/peernode/tls.cert"))
        XCTAssertEqual(config.lnd.url, "https://127.0.0.1:8080")
        XCTAssertEqual(config.provider, NodeConfig.ProviderSettings(enabled: false, baseFeeSat: 500, feePPM: 2_000,
                                                                    minAmountSat: 10_000, maxAmountSat: 1_000_000))
        XCTAssertEqual(config.provider.quoteLifetimeSeconds, 300)
        XCTAssertEqual(config.htlcTimeoutBlocks, 144)
        XCTAssertEqual(config.confirmations, 1)
        XCTAssertEqual(config.clientMinConfirmations, 1)
        XCTAssertEqual(config.clientFinalityConfirmations, 1)
        XCTAssertEqual(config.zeroConf, NodeConfig.ZeroConfPolicy(enabled: true, maxSat: 100_000))
        XCTAssertEqual(config.maxFeePPM, 50_000, "the client pays a provider at most 5 % by default")
        XCTAssertEqual(config.fees.floor.satPerKvB, 1_000)
        XCTAssertEqual(config.fees.cap.satPerKvB, 100_000, "100 sat/vB: every lock of 14,730 sat or more can pay its refund at the cap")
        XCTAssertEqual(config.fees.fallback.satPerKvB, 10_000)
        XCTAssertEqual(config.extraProviders, [])
        XCTAssertEqual(config.walletSyncSeconds, 10)
        XCTAssertEqual(config.lightningReceive, NodeConfig.LightningReceiveSettings(enabled: true, minSat: 1, maxSat: 1_000_000,
                                                                                     expirySeconds: 3_600),
                       "an LND is always configured: contacts may ask for invoices of 1 sat to 1,000,000 sat, payable for an hour")
        XCTAssertEqual(config.seedFile, "/var/lib/peernode/seed")
        XCTAssertEqual(config.storeFile, "/var/lib/peernode/peernode.db")
    }

    func testConfigDefaultsOnMainnetAreSafe() throws {
        let config = try resolve(Array(Self.base.dropFirst()))
        XCTAssertEqual(config.network, .mainnet)
        XCTAssertEqual(config.bitcoind.port, 8332)
        XCTAssertEqual(config.confirmations, 2)
        XCTAssertEqual(config.clientMinConfirmations, 2, "a client waits for 2 on mainnet whatever is quoted (L-2)")
        XCTAssertEqual(config.clientFinalityConfirmations, 6, "a client watches its claim until 6 deep on mainnet (L-1)")
        XCTAssertFalse(config.zeroConf.enabled)
        XCTAssertEqual(config.fees.floor.satPerKvB, 5_000)
        for (network, port) in [("testnet", 18332), ("signet", 38332)] {
            XCTAssertEqual(try resolve(["network=\(network)"] + Self.base.dropFirst()).bitcoind.port, port)
        }
    }

    // MARK: every key, good values

    func testConfigAcceptsGoodValuesForEveryKey() throws {
        let cases: [(String, (NodeConfig) -> Bool)] = [
            ("network=signet", { $0.network == .signet }),
            ("listen=0.0.0.0:0", { $0.listen == NodeConfig.HostPort(host: "0.0.0.0", port: 0) }),
            ("listen=[::1]:9000", { $0.listen == NodeConfig.HostPort(host: "::1", port: 9000) }),
            ("listen=node.example:65535", { $0.listen.port == 65535 }),
            ("control_socket=/tmp/p.sock", { $0.controlSocket == "/tmp/p.sock" }),
            ("control_socket=run/p.sock", { $0.controlSocket == "/var/lib/peernode/run/p.sock" }),
            ("bitcoind_rpc_host=10.0.0.2", { $0.bitcoind.host == "10.0.0.2" }),
            ("bitcoind_rpc_port=1", { $0.bitcoind.port == 1 }),
            ("lnd_rest_host=localhost", { $0.lnd.host == "localhost" }),
            ("lnd_rest_port=65535", { $0.lnd.port == 65535 }),
            ("lnd_macaroon=/etc/lnd/admin.macaroon", { $0.lnd.macaroonPath == "/etc/lnd/admin.macaroon" }),
            ("lnd_tls_cert=/home/u/.lnd/tls.cert", { $0.lnd.tlsCertificatePath == "/home/u/.lnd/tls.cert" }),
            ("provider=1", { $0.provider.enabled }),
            ("provider=0", { !$0.provider.enabled }),
            ("base_fee_sat=0", { $0.provider.baseFeeSat == 0 }),
            ("base_fee_sat=1000000", { $0.provider.baseFeeSat == 1_000_000 }),
            ("fee_ppm=1000000", { $0.provider.feePPM == 1_000_000 }),
            ("min_amount_sat=1000", { $0.provider.minAmountSat == 1_000 }),
            ("max_amount_sat=2100000000000000", { $0.provider.maxAmountSat == 2_100_000_000_000_000 }),
            ("quote_lifetime_seconds=5", { $0.provider.quoteLifetimeSeconds == 5 }),
            ("quote_lifetime_seconds=3600", { $0.provider.quoteLifetimeSeconds == 3_600 }),
            ("htlc_timeout_blocks=1008", { $0.htlcTimeoutBlocks == 1008 }),
            ("htlc_timeout_blocks=37", { $0.htlcTimeoutBlocks == 37 }),
            ("confirmations=6", { $0.confirmations == 6 }),
            ("client_min_confirmations=3", { $0.clientMinConfirmations == 3 }),
            ("client_finality_confirmations=4", { $0.clientFinalityConfirmations == 4 }),
            ("zero_conf=0", { !$0.zeroConf.enabled }),
            ("max_fee_ppm=0", { $0.maxFeePPM == 0 }),
            ("max_fee_ppm=1000000", { $0.maxFeePPM == 1_000_000 }),
            ("max_zero_conf_sat=0", { $0.zeroConf.maxSat == 0 }),
            ("fee_floor_sat_vb=0.1", { $0.fees.floor.satPerKvB == 100 }),
            ("fee_floor_sat_vb=2.125", { $0.fees.floor.satPerKvB == 2_125 }),
            ("fee_cap_sat_vb=10000", { $0.fees.cap.satPerKvB == 10_000_000 }),
            ("fee_fallback_sat_vb=1", { $0.fees.fallback.satPerKvB == 1_000 }),
            ("extra_provider=\(Self.pubky)@127.0.0.1:9738", { $0.extraProviders.map(\.port) == [9738] }),
            ("wallet_sync_seconds=3600", { $0.walletSyncSeconds == 3600 }),
            ("log_peer_events=1", { $0.logPeerEvents }),
            ("accept_lightning=0", { !$0.lightningReceive.enabled }),
            ("accept_onchain=0", { !$0.acceptOnchain }),
            ("lightning_receive_min_sat=1000000", { $0.lightningReceive.minSat == 1_000_000 }),
            ("lightning_receive_max_sat=2100000000000000", { $0.lightningReceive.maxSat == 2_100_000_000_000_000 }),
            ("lightning_receive_expiry_seconds=120", { $0.lightningReceive.expirySeconds == 120 }),
            ("lightning_receive_expiry_seconds=86400", { $0.lightningReceive.expirySeconds == 86_400 }),
        ]
        for (line, check) in cases {
            let config = try resolve(with(line))
            XCTAssertTrue(check(config), line)
        }
        let cookie = try resolve(["network=regtest", "bitcoind_rpc_cookie=/home/u/.bitcoin/regtest/.cookie", "lnd_macaroon=m",
                                  "lnd_rest_tls=0"])
        XCTAssertEqual(cookie.bitcoindCredentials, .cookieFile(path: "/home/u/.bitcoin/regtest/.cookie"))
        let two = try resolve(Self.base + ["extra_provider=\(Self.pubky)@a:1", "extra_provider=pk:\(Self.pubky)@[::1]:2"])
        XCTAssertEqual(two.extraProviders.map(\.host), ["a", "::1"])
    }

    // MARK: every key, bad values

    func testConfigRefusesBadValuesNamingTheKeyAndWhatIsAllowed() {
        let cases: [(String, String)] = [
            ("network=bitcoin", "not a network"),
            ("network=Regtest", "not a network"),
            ("listen=127.0.0.1", "no port"),
            ("listen=127.0.0.1:70000", "the port is not a number in 0 to 65535"),
            ("listen=::1:9000", "[addr]:port"),
            ("listen=:9000", "no host"),
            ("listen=a b:1", "characters a host name cannot have"),
            ("control_socket=", "empty"),
            ("bitcoind_rpc_host=", "empty"),
            ("bitcoind_rpc_host=http://x", "characters a host name cannot have"),
            ("bitcoind_rpc_port=0", "out of range"),
            ("bitcoind_rpc_port=abc", "not a whole number"),
            ("lnd_rest_host=", "empty"),
            ("lnd_rest_port=65536", "out of range"),
            ("lnd_macaroon=", "empty"),
            ("provider=yes", "not 0 or 1"),
            ("provider=2", "not 0 or 1"),
            ("base_fee_sat=-1", "negative"),
            ("base_fee_sat=1000001", "out of range"),
            ("fee_ppm=1.5", "not a whole number"),
            ("fee_ppm=1000001", "out of range"),
            ("min_amount_sat=999", "out of range"),
            ("max_amount_sat=2100000000000001", "out of range"),
            ("max_amount_sat=9999", "below min_amount_sat"),
            ("quote_lifetime_seconds=4", "out of range"),
            ("quote_lifetime_seconds=3601", "out of range"),
            ("quote_lifetime_seconds=1.5", "not a whole number"),
            ("htlc_timeout_blocks=1009", "out of range"),
            ("htlc_timeout_blocks=0", "out of range"),
            ("htlc_timeout_blocks=36", "too short for 1 confirmations"),
            ("confirmations=0", "out of range"),
            ("client_min_confirmations=0", "out of range"),
            ("client_min_confirmations=101", "out of range"),
            ("client_finality_confirmations=0", "out of range"),
            ("client_finality_confirmations=101", "out of range"),
            ("confirmations=101", "out of range"),
            ("zero_conf=true", "not 0 or 1"),
            ("max_fee_ppm=1000001", "out of range"),
            ("max_fee_ppm=-1", "negative"),
            ("max_zero_conf_sat=-5", "negative"),
            ("fee_floor_sat_vb=0.05", "out of range"),
            ("fee_floor_sat_vb=1.2345", "at most 3 decimals"),
            ("fee_floor_sat_vb=1e3", "at most 3 decimals"),
            ("fee_cap_sat_vb=10000.001", "out of range"),
            ("fee_cap_sat_vb=0.5", "below fee_floor_sat_vb"),
            ("fee_fallback_sat_vb=600", "outside the floor and cap"),
            ("fee_fallback_sat_vb=-1", "negative"),
            ("extra_provider=127.0.0.1:9", "no '@'"),
            ("extra_provider=nobody@127.0.0.1:9", "the pubky is not valid"),
            ("extra_provider=\(Self.pubky)@127.0.0.1", "no port"),
            ("wallet_sync_seconds=0", "out of range"),
            ("wallet_sync_seconds=3601", "out of range"),
            ("accept_lightning=yes", "not 0 or 1"),
            ("accept_onchain=2", "not 0 or 1"),
            ("lightning_receive_min_sat=0", "out of range"),
            ("lightning_receive_min_sat=-1", "negative"),
            ("lightning_receive_max_sat=2100000000000001", "out of range"),
            ("lightning_receive_expiry_seconds=119", "out of range"),
            ("lightning_receive_expiry_seconds=86401", "out of range"),
        ]
        for (line, expected) in cases {
            guard let error = failure(with(line)) else { continue }
            let key = String(line.prefix { $0 != "=" })
            let message = error.description
            XCTAssertEqual(error.key, key, line)
            XCTAssertTrue(message.hasPrefix(key), "\(line): \(message)")
            XCTAssertTrue(message.contains(expected), "\(line): \(message)")
            XCTAssertTrue(message.contains("allowed: "), "\(line): \(message)")
            XCTAssertTrue(message.contains("peernode.conf line") || message.contains("default"), "\(line): \(message)")
        }
    }

    /// A receive range that is empty stops startup, even with accept_lightning=0 (turning
    /// it on later must not meet a bad pair).
    func testConfigLightningReceiveRangeMustNotBeEmpty() throws {
        for extra in [[String](), ["accept_lightning=0"]] {
            let error = try XCTUnwrap(failure(Self.base + extra + ["lightning_receive_min_sat=1000", "lightning_receive_max_sat=999"]))
            XCTAssertEqual(error.key, "lightning_receive_max_sat")
            XCTAssertTrue(error.description.contains("below lightning_receive_min_sat (1000)"), error.description)
            XCTAssertTrue(error.description.contains("allowed: 1000 to"), error.description)
        }
        XCTAssertEqual(try resolve(Self.base + ["lightning_receive_min_sat=1000", "lightning_receive_max_sat=1000"])
            .lightningReceive.maxSat, 1_000)
    }

    /// Issue 16: the submarine direction is off unless asked for (paying invoices needs
    /// LND's payment permissions); its terms resolve into `SubmarineTerms`, and a bad
    /// value stops startup naming its key.
    /// Issue 17: cooperative claims are on by default, both roles; 0 turns them off; anything
    /// else is refused naming the key.
    func testMusig2IsOnByDefaultAndOnlyZeroOrOne() throws {
        XCTAssertTrue(try resolve(Self.base).musig2)
        XCTAssertTrue(try resolve(Self.base + ["provider=1", "musig2=1"]).musig2)
        XCTAssertFalse(try resolve(Self.base + ["musig2=0"]).musig2)
        XCTAssertThrowsError(try resolve(Self.base + ["musig2=yes"])) { error in
            XCTAssertTrue("\(error)".contains("musig2"), "\(error)")
        }
    }

    func testSubmarineIsOffByDefaultAndItsTermsResolve() throws {
        let defaults = try resolve(Self.base + ["provider=1"])
        XCTAssertEqual(defaults.submarine, NodeConfig.SubmarineSettings())
        XCTAssertNil(try defaults.submarine.terms())
        XCTAssertEqual(try resolve(Array(Self.base.dropFirst())).submarine.confirmations, 2, "2 on mainnet")

        let config = try resolve(Self.base + ["provider=1", "submarine=1", "submarine_min_sat=20000", "submarine_max_sat=300000",
                                              "submarine_base_fee_sat=100", "submarine_fee_ppm=3000",
                                              "submarine_confirmations=2", "submarine_timeout_blocks=96",
                                              "submarine_route_cltv_blocks=40"])
        let terms = try XCTUnwrap(try config.submarine.terms())
        XCTAssertEqual(terms.minAmountSat, 20_000)
        XCTAssertEqual(terms.maxAmountSat, 300_000)
        XCTAssertEqual(terms.feeModel, FeeModel(baseFeeSat: 100, feePPM: 3_000))
        XCTAssertEqual(terms.requiredConfirmations, 2)
        XCTAssertEqual(terms.htlcTimeoutBlocks, 96)
        XCTAssertEqual(terms.routeCLTVBlocks, 40)
        let defaultTerms = try XCTUnwrap(try resolve(Self.base + ["provider=1", "submarine=1"]).submarine.terms())
        XCTAssertEqual(defaultTerms.htlcTimeoutBlocks, 288)
        XCTAssertEqual(defaultTerms.routeCLTVBlocks, 160)

        let bad: [([String], String)] = [
            (["submarine=1"], "submarine"),
            (["provider=1", "submarine=2"], "submarine"),
            (["provider=1", "submarine_confirmations=0"], "submarine_confirmations"),
            (["provider=1", "submarine_timeout_blocks=33"], "submarine_timeout_blocks"),
            (["provider=1", "submarine_confirmations=3", "submarine_timeout_blocks=35"], "submarine_timeout_blocks"),
            (["provider=1", "submarine_timeout_blocks=205"], "submarine_timeout_blocks"),
            (["provider=1", "submarine_route_cltv_blocks=250"], "submarine_timeout_blocks"),
            (["provider=1", "submarine_route_cltv_blocks=-1"], "submarine_route_cltv_blocks"),
            (["provider=1", "submarine_route_cltv_blocks=x"], "submarine_route_cltv_blocks"),
            (["provider=1", "submarine_min_sat=50000", "submarine_max_sat=40000"], "submarine_max_sat"),
            (["provider=1", "submarine_fee_ppm=-1"], "submarine_fee_ppm"),
            (["provider=1", "submarine_base_fee_sat=x"], "submarine_base_fee_sat"),
        ]
        for (lines, key) in bad {
            XCTAssertEqual(failure(Self.base + lines)?.key, key, "\(lines)")
        }
        XCTAssertNoThrow(try resolve(Self.base + ["provider=1", "submarine=1", "submarine_timeout_blocks=206"]),
                         "1 confirmation + 12 + 12 + 3 + 160 + 18")
        XCTAssertNoThrow(try resolve(Self.base + ["provider=1", "submarine=1", "submarine_timeout_blocks=46",
                                                  "submarine_route_cltv_blocks=0"]), "1 + 12 + 12 + 3 + 0 + 18")
        // On mainnet 1 confirmation needs --allow-unsafe, as the reverse direction's.
        let mainnet = Array(Self.base.dropFirst()) + ["provider=1", "submarine=1", "submarine_confirmations=1"]
        XCTAssertEqual(failure(mainnet)?.key, "submarine_confirmations")
        XCTAssertEqual(try resolve(mainnet, allowUnsafe: true).submarine.confirmations, 1)
    }

    /// Audit H-4: a provider's every lock must pay its refund at the fee cap and keep more
    /// than dust; a largest swap below that would serve nothing.
    func testAProviderWhoseLargestSwapCannotPayItsRefundAtTheCapIsRefused() throws {
        let lines = Self.base + ["provider=1", "min_amount_sat=1000", "max_amount_sat=20000", "fee_cap_sat_vb=500"]
        let error = try XCTUnwrap(failure(lines))
        XCTAssertEqual(error.key, "max_amount_sat")
        XCTAssertTrue(error.description.contains("72330"), error.description)
        XCTAssertTrue(error.description.contains("lower fee_cap_sat_vb"), error.description)
        XCTAssertNoThrow(try resolve(Self.base + ["provider=1", "min_amount_sat=1000", "max_amount_sat=20000"]))
    }

    func testConfigCredentialsMustBeOneKind() {
        let noMacaroon = failure(["network=regtest", "bitcoind_rpc_user=u", "bitcoind_rpc_password=p"])
        XCTAssertEqual(noMacaroon?.key, "lnd_macaroon")
        XCTAssertEqual(noMacaroon?.problem, .missing("give the path of LND's admin.macaroon"))
        XCTAssertEqual(failure(["network=regtest", "lnd_macaroon=m"])?.key, "bitcoind_rpc_cookie")
        XCTAssertEqual(failure(["network=regtest", "lnd_macaroon=m", "bitcoind_rpc_password=p"])?.key, "bitcoind_rpc_user")
        XCTAssertEqual(failure(["network=regtest", "lnd_macaroon=m", "bitcoind_rpc_user=u"])?.key, "bitcoind_rpc_password")
        let both = failure(Self.base + ["bitcoind_rpc_cookie=/c"])
        XCTAssertEqual(both?.key, "bitcoind_rpc_cookie")
        XCTAssertTrue(both?.description.contains("either a cookie file or a user and password") == true)
    }

    func testConfigLNDNeedsATLSCertificateUnlessPlainHTTPOnLoopback() throws {
        let noCertificate = failure(Self.base.filter { !$0.hasPrefix("lnd_tls_cert=") })
        XCTAssertEqual(noCertificate?.key, "lnd_tls_cert")
        XCTAssertTrue(noCertificate?.description.contains("tls.cert") == true, noCertificate?.description ?? "")

        let plain = try resolve(Self.base.filter { !$0.hasPrefix("lnd_tls_cert=") } + ["lnd_rest_tls=0"])
        XCTAssertNil(plain.lnd.tlsCertificatePath)
        XCTAssertEqual(plain.lnd.url, "http://127.0.0.1:8080")
        for host in ["localhost", "127.0.0.2", "::1"] {
            XCTAssertNoThrow(try resolve(Self.base.filter { !$0.hasPrefix("lnd_tls_cert=") }
                                         + ["lnd_rest_tls=0", "lnd_rest_host=\(host)"]), host)
        }

        let remote = failure(Self.base.filter { !$0.hasPrefix("lnd_tls_cert=") } + ["lnd_rest_tls=0", "lnd_rest_host=10.0.0.5"])
        XCTAssertEqual(remote?.key, "lnd_rest_tls")
        XCTAssertTrue(remote?.description.contains("loopback") == true, remote?.description ?? "")

        let both = failure(Self.base + ["lnd_rest_tls=0"])
        XCTAssertEqual(both?.key, "lnd_tls_cert")
        XCTAssertTrue(try resolve(Self.base + ["lnd_rest_tls=1"]).lnd.tlsCertificatePath == "/var/lib/peernode/tls.cert")
    }

    // MARK: the chain backend

    /// Issue 18's three keys: a node with only an Electrum server and LND (no bitcoind_rpc_*).
    func testConfigElectrumNeedsOnlyItsServerAndCertificate() throws {
        let electrum = ["network=regtest", "lnd_macaroon=m", "lnd_tls_cert=tls.cert", "chain_backend=electrum",
                        "electrum_server=electrum.example:50002", "electrum_tls_cert=server.crt"]
        let config = try resolve(electrum)
        XCTAssertEqual(config.electrum, ElectrumServer(host: "electrum.example", port: 50002,
                                                       tlsCertificatePath: "/var/lib/peernode/server.crt", trusted: false))
        XCTAssertEqual(config.electrum?.url, "electrums://electrum.example:50002")
        XCTAssertFalse(config.chainBackendIsOwn)
        XCTAssertFalse(config.zeroConf.enabled, "zero-conf is off by default on a server that is not the operator's")

        let trusted = try resolve(electrum + ["electrum_trusted=1"])
        XCTAssertTrue(trusted.chainBackendIsOwn)
        XCTAssertTrue(trusted.zeroConf.enabled, "regtest's default, on the operator's own server")
        let plainLoopback = try resolve(["network=regtest", "lnd_macaroon=m", "lnd_tls_cert=tls.cert", "chain_backend=electrum",
                                         "electrum_server=127.0.0.1:50001", "electrum_tls=0", "electrum_trusted=1"])
        XCTAssertEqual(plainLoopback.electrum?.url, "electrum://127.0.0.1:50001")
        XCTAssertNil(plainLoopback.electrum?.tlsCertificatePath)

        let core = try resolve(Self.base)
        XCTAssertNil(core.electrum)
        XCTAssertTrue(core.chainBackendIsOwn)
        XCTAssertTrue(try resolve(electrum + ["electrum_trusted=1", "provider=1"]).provider.enabled,
                      "a provider on its own Electrum server")
        XCTAssertNoThrow(try resolve(Self.base + ["chain_backend=bitcoind", "electrum_tls=1", "electrum_trusted=0"]),
                         "the defaults of unused keys, uncommented, do no harm")
    }

    func testConfigElectrumRefusesWhatWouldMisleadTheNode() {
        let electrum = ["network=regtest", "lnd_macaroon=m", "lnd_tls_cert=tls.cert", "chain_backend=electrum"]
        let cases: [([String], String, String)] = [
            (electrum, "electrum_server", "host:port"),
            (electrum + ["electrum_server=e.example"], "electrum_server", "port"),
            (electrum + ["electrum_server=e.example:50002"], "electrum_tls_cert", "electrum_tls=0"),
            (electrum + ["electrum_server=e.example:50001", "electrum_tls=0", "electrum_tls_cert=c.pem"], "electrum_tls_cert", "turns TLS off"),
            (electrum + ["electrum_server=e.example:50001", "electrum_tls=0", "electrum_trusted=1"], "electrum_trusted", "impersonated"),
            (electrum + ["electrum_server=e.example:50002", "electrum_tls_cert=c.pem", "zero_conf=1"], "zero_conf", "electrum_trusted=1"),
            (electrum + ["electrum_server=e.example:50002", "electrum_tls_cert=c.pem", "electrum_trusted=yes"], "electrum_trusted", "0 or 1"),
            (Self.base + ["chain_backend=esplora"], "chain_backend", "bitcoind or electrum"),
            (Self.base + ["electrum_server=e.example:50002"], "electrum_server", "chain_backend=electrum"),
            // A provider reads the preimage from the claim's witness, which a txid does not
            // cover: a server that is not the operator's could blank it and keep the payment held.
            (electrum + ["electrum_server=e.example:50002", "electrum_tls_cert=c.pem", "provider=1"], "provider", "witness"),
        ]
        for (lines, key, hint) in cases {
            let error = failure(lines)
            XCTAssertEqual(error?.key, key, "\(lines)")
            XCTAssertTrue(error?.description.contains(hint) == true, "\(lines): \(error?.description ?? "")")
        }
        // Without chain_backend=electrum, Core's credentials stay required.
        XCTAssertEqual(failure(["network=regtest", "lnd_macaroon=m", "lnd_tls_cert=tls.cert"])?.key, "bitcoind_rpc_cookie")
    }

    func testConfigNeverEchoesThePassword() {
        let error = failure(["network=regtest", "bitcoind_rpc_user=u", "bitcoind_rpc_password=", "lnd_macaroon=m"])
        XCTAssertEqual(error?.key, "bitcoind_rpc_password")
        XCTAssertNil(error?.value)
        let duplicate = failure(Self.base + ["bitcoind_rpc_password=hunter2"])
        XCTAssertFalse(duplicate?.description.contains("hunter2") ?? true)
        XCTAssertFalse(duplicate?.description.contains("secret-pw") ?? true)
    }

    func testConfigControlSocketPathMustFitAUnixSocket() {
        let long = "/" + String(repeating: "d", count: 110) + "/p.sock"
        let error = failure(Self.base + ["control_socket=\(long)"])
        XCTAssertEqual(error?.key, "control_socket")
        XCTAssertTrue(error?.description.contains("at most 107 bytes") == true, error?.description ?? "")
    }

    // MARK: unknown keys, duplicates, syntax

    func testConfigUnknownKeySuggestsTheClosestKnownOne() {
        let cases: [(String, String?)] = [
            ("fee_pmm=2000", "fee_ppm"),
            ("basefee_sat=1", "base_fee_sat"),
            ("confirmation=3", "confirmations"),
            ("lnd_macaron=x", "lnd_macaroon"),
            ("rpcuser=u", nil),
            ("color=blue", nil),
        ]
        for (line, suggestion) in cases {
            let error = failure(Self.base + [line])
            XCTAssertEqual(error?.problem, .unknownKey(suggestion: suggestion), line)
            XCTAssertEqual(error?.origin, "peernode.conf line 6", line)
            if let suggestion {
                XCTAssertTrue(error?.description.contains("did you mean \(suggestion)?") == true, error?.description ?? "")
            }
        }
        let fromCommandLine = failure(Self.base, overrides: ["--provder=1"])
        XCTAssertEqual(fromCommandLine?.problem, .unknownKey(suggestion: "provider"))
        XCTAssertEqual(fromCommandLine?.origin, "command line")
    }

    func testConfigRefusesDuplicatesAndDatadirInTheFile() {
        let duplicate = failure(Self.base + ["fee_ppm=1", "fee_ppm=2"])
        XCTAssertEqual(duplicate?.problem, .duplicate(firstOrigin: "peernode.conf line 6"))
        XCTAssertEqual(duplicate?.origin, "peernode.conf line 7")
        XCTAssertEqual(failure(Self.base, overrides: ["--fee_ppm=1", "--fee_ppm=2"])?.key, "fee_ppm")
        XCTAssertEqual(failure(Self.base + ["datadir=/elsewhere"])?.key, "datadir")
    }

    func testConfigFileSyntax() throws {
        let parsed = try ConfigFileParser.parse("""
            # a comment
              network = regtest   # trailing comment
            bitcoind_rpc_password=a#b
            \tlnd_macaroon=m\r

            """, fileName: "f")
        XCTAssertEqual(parsed, [
            ConfigEntry(key: "network", value: "regtest", origin: "f line 2"),
            ConfigEntry(key: "bitcoind_rpc_password", value: "a#b", origin: "f line 3"),
            ConfigEntry(key: "lnd_macaroon", value: "m", origin: "f line 4"),
        ])
        let cases: [(String, String)] = [
            ("network", "without '='; write it as key=value, or start it with # to make it a comment"),
            ("[regtest]", "sections"),
            ("=1", "names no key"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try ConfigFileParser.parse("# x\n" + text, fileName: "f")) { error in
                let failure = error as? ConfigError
                XCTAssertEqual(failure?.origin, "f line 2")
                XCTAssertTrue(failure?.description.contains(expected) == true, "\(text): \(String(describing: failure))")
            }
        }
        XCTAssertThrowsError(try ConfigFileParser.parseOverrides(["provider=1"]))
        XCTAssertEqual(try ConfigFileParser.parseOverrides(["--provider"]), [ConfigEntry(key: "provider", value: "1", origin: "command line")])
    }

    func testConfigCommandLineWinsKeyByKey() throws {
        let config = try resolve(Self.base + ["fee_ppm=10", "extra_provider=\(Self.pubky)@a:1", "extra_provider=\(Self.pubky)@b:2"],
                                 overrides: ["--fee_ppm=20", "--extra_provider=\(Self.pubky)@c:3"])
        XCTAssertEqual(config.provider.feePPM, 20)
        XCTAssertEqual(config.extraProviders.map(\.host), ["c"])
        let error = failure(Self.base, overrides: ["--fee_ppm=x"])
        XCTAssertEqual(error?.origin, "command line")
    }

    // MARK: mainnet safety

    func testConfigMainnetRefusesUnsafeSettingsWithoutAllowUnsafe() throws {
        let mainnet = Array(Self.base.dropFirst())
        let unsafe: [([String], String)] = [
            (["confirmations=1"], "confirmations"),
            (["client_min_confirmations=1"], "client_min_confirmations"),
            (["zero_conf=1", "max_zero_conf_sat=100001"], "max_zero_conf_sat"),
            (["fee_floor_sat_vb=4.999", "fee_fallback_sat_vb=10"], "fee_floor_sat_vb"),
            // CFG-1: Core's RPC password in clear across a network.
            (["bitcoind_rpc_host=192.168.1.20"], "bitcoind_rpc_host"),
        ]
        for (lines, key) in unsafe {
            let error = failure(mainnet + lines)
            XCTAssertEqual(error?.key, key, "\(lines)")
            guard case .unsafe? = error?.problem else { XCTFail("\(lines): \(String(describing: error))"); continue }
            XCTAssertTrue(error?.description.contains("--allow-unsafe") == true)
            XCTAssertNoThrow(try resolve(mainnet + lines, allowUnsafe: true), "\(lines)")
            // The same settings are fine off mainnet.
            XCTAssertNoThrow(try resolve(Self.base + lines), "\(lines)")
        }
        // At the limits, mainnet needs no override.
        XCTAssertNoThrow(try resolve(mainnet + ["confirmations=2", "zero_conf=1", "max_zero_conf_sat=100000", "fee_floor_sat_vb=5"]))
        // Core on this host, under any loopback name, or not used at all (Electrum), is fine.
        for host in ["127.0.0.1", "localhost", "::1"] {
            XCTAssertNoThrow(try resolve(mainnet + ["bitcoind_rpc_host=\(host)"]), host)
        }
        XCTAssertNoThrow(try resolve(mainnet + ["bitcoind_rpc_host=192.168.1.20", "chain_backend=electrum",
                                                "electrum_server=e.example:50002", "electrum_tls_cert=c.pem"]))
        // A large zero-conf cap with zero-conf off risks nothing.
        XCTAssertNoThrow(try resolve(mainnet + ["zero_conf=0", "max_zero_conf_sat=5000000"]))
    }

    func testConfigKeyTableDocumentsEveryKey() {
        XCTAssertEqual(Set(ConfigKey.names).count, ConfigKey.all.count)
        let table = ConfigKey.table
        for key in ConfigKey.all {
            XCTAssertTrue(table.contains(key.name))
            XCTAssertFalse(key.summary.isEmpty)
            XCTAssertFalse(key.allowed.isEmpty)
        }
        // The template init writes is itself a valid config once credentials are added.
        let template = ConfigTemplate.text(network: .regtest)
        XCTAssertNoThrow(try resolve(template.split(separator: "\n").map(String.init) + Self.base.dropFirst()))
        for key in ConfigKey.all where key.name != "datadir" {
            XCTAssertTrue(template.contains(key.name + "="), key.name)
        }
    }

    // MARK: pkarr

    func testPkarrSettings() throws {
        XCTAssertFalse(try resolve(Self.base).pkarr.enabled)
        let config = try resolve(Self.base + ["pkarr_relay=http://127.0.0.1:6881", "pkarr_relay=http://[::1]:6882/pkarr",
                                              "pkarr_ttl_seconds=60", "private_discovery=1", "discovery_interval_seconds=30"])
        XCTAssertEqual(config.pkarr.relays.map(\.description), ["http://127.0.0.1:6881", "http://[::1]:6882/pkarr"])
        XCTAssertEqual(config.pkarr.addresses, ["127.0.0.1"], "the listen host, when it can be dialled")
        XCTAssertEqual(config.pkarr.ttlSeconds, 60)
        XCTAssertTrue(config.pkarr.privateDiscovery)
        XCTAssertEqual(config.pkarr.discoveryIntervalSeconds, 30)
        let listed = try resolve(Self.base + ["listen=0.0.0.0:9737", "pkarr_relay=http://127.0.0.1:6881",
                                              "pkarr_address=192.0.2.7", "pkarr_address=2001:db8::7"])
        XCTAssertEqual(listed.pkarr.addresses, ["192.0.2.7", "2001:db8::7"])
    }

    func testPkarrSettingsRefusedWithTheKeyNamed() {
        XCTAssertEqual(failure(Self.base + ["pkarr_relay=https://relay.pkarr.org"])?.key, "pkarr_relay")
        XCTAssertTrue("\(failure(Self.base + ["pkarr_relay=https://relay.pkarr.org"])!)".contains("uses https"))
        XCTAssertEqual(failure(Self.base + ["pkarr_relay=relay.example:80"])?.key, "pkarr_relay")
        XCTAssertEqual(failure(Self.base + ["pkarr_relay=http://127.0.0.1:1", "pkarr_address=example.com"])?.key, "pkarr_address")
        XCTAssertEqual(failure(Self.base + ["pkarr_relay=http://127.0.0.1:1", "pkarr_address=0.0.0.0"])?.key, "pkarr_address")
        XCTAssertEqual(failure(Self.base + ["listen=0.0.0.0:9737", "pkarr_relay=http://127.0.0.1:1"])?.key, "pkarr_address")
        XCTAssertEqual(failure(Self.base + ["private_discovery=1"])?.key, "private_discovery")
        XCTAssertEqual(failure(Self.base + ["pkarr_ttl_seconds=5"])?.key, "pkarr_ttl_seconds")
        XCTAssertEqual(failure(Self.base + ["discovery_interval_seconds=0"])?.key, "discovery_interval_seconds")
    }
}
