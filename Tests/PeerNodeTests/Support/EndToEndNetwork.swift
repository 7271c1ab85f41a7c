import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// Three nodes on one hub, over loopback TCP: a provider (funded wallet, Lightning node
/// `provider` with nothing in it), a client (Lightning node `client` with its spending
/// balance, no coins on chain) and the payee contact (a wallet, no provider). The
/// client's contact list also holds a contact that is offline, so its router has a real
/// choice to make: one provider among three contacts.
final class EndToEndNetwork: Sendable {
    static let clientBalanceSat: UInt64 = 500_000

    let hub: HubFixture
    let provider: SwapProviderNode
    let client: SwapClientNode
    let payee: SwapPayeeNode
    let offline: Offers.Contact

    private init(hub: HubFixture, provider: SwapProviderNode, client: SwapClientNode, payee: SwapPayeeNode,
                 offline: Offers.Contact) {
        self.hub = hub
        self.provider = provider
        self.client = client
        self.payee = payee
        self.offline = offline
    }

    /// Starts a network in `directory`, runs `body` on it, and shuts it down however `body` ends.
    static func run(directory: String, clientBalanceSat: UInt64 = clientBalanceSat,
                    clientConfiguration: ClientEngineConfiguration = SwapClientNode.testConfiguration(),
                    cooperation: SwapProviderNode.Cooperation = .off,
                    providerStore: @Sendable (SQLiteSwapStore) -> any SwapStore = { $0 },
                    clientStore: @Sendable (SQLiteSwapStore) -> any SwapStore = { $0 },
                    _ body: (EndToEndNetwork) async throws -> Void) async throws {
        let network = try await start(directory: directory, clientBalanceSat: clientBalanceSat,
                                      clientConfiguration: clientConfiguration, cooperation: cooperation,
                                      providerStore: providerStore, clientStore: clientStore)
        do {
            try await body(network)
        } catch {
            await network.shutDown()
            throw error
        }
        await network.shutDown()
    }

    static func start(directory: String, clientBalanceSat: UInt64 = clientBalanceSat,
                      clientConfiguration: ClientEngineConfiguration = SwapClientNode.testConfiguration(),
                      cooperation: SwapProviderNode.Cooperation = .off,
                      providerStore: @Sendable (SQLiteSwapStore) -> any SwapStore = { $0 },
                      clientStore: @Sendable (SQLiteSwapStore) -> any SwapStore = { $0 }) async throws -> EndToEndNetwork {
        let hub = try await HubFixture.start(lightningNodes: [("provider", 0), ("client", clientBalanceSat * 1_000)])
        let provider = try await SwapProviderNode.start(hub: hub, lightningNode: "provider",
                                                        storePath: directory + "/provider.sqlite", cooperation: cooperation,
                                                        store: providerStore)
        let client = try await SwapClientNode.start(hub: hub, lightningNode: "client", storePath: directory + "/client.sqlite",
                                                    configuration: clientConfiguration, store: clientStore)
        let payee = try await SwapPayeeNode.start(hub: hub)
        // A port that was just free and is closed again: connecting is refused.
        let closed = try await PeerListener.start(server: PeerServer(identity: payee.identity, sleeper: hub.loop.sleeper,
                                                                     handlers: PeerHandlers()), loop: hub.loop)
        let port = UInt16(closed.port)
        await closed.close()
        let offline = Offers.Contact(pubky: NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x0f, count: 32))).pubky,
                                     host: "127.0.0.1", port: port, name: "offline friend")
        return EndToEndNetwork(hub: hub, provider: provider, client: client, payee: payee, offline: offline)
    }

    /// The client's saved contacts, the provider last.
    var contacts: [Offers.Contact] { [offline, payee.contact, provider.contact] }

    /// Routes a payment over the client's contacts and checks the choice: the provider,
    /// with the other two skipped for what they are.
    func routeThroughProvider(amountSat: Int64, to destination: Address,
                              file: StaticString = #filePath, line: UInt = #line) async throws -> RouteDecision {
        let decision = try await client.route(amountSat: amountSat, to: destination, contacts: contacts)
        XCTAssertEqual(decision.choice?.provider.contact, provider.contact, "\(decision.debugLines)", file: file, line: line)
        XCTAssertEqual(decision.probed, 3, file: file, line: line)
        let skipped = Dictionary(uniqueKeysWithValues: decision.skipped.map { ($0.contact.pubky, $0.reason) })
        if case .unreachable? = skipped[offline.pubky] {} else {
            XCTFail("the offline contact is unreachable: \(decision.debugLines)", file: file, line: line)
        }
        switch skipped[payee.contact.pubky] {
        case .notAProvider?, .rejected?: break
        default: XCTFail("the payee runs no provider: \(decision.debugLines)", file: file, line: line)
        }
        return decision
    }

    /// Every balance that can move in a swap, and what left the participants' hands.
    struct Balances: Sendable, CustomStringConvertible {
        var providerChainSat: Int64
        var payeeChainSat: Int64
        var clientChainSat: Int64
        var lightning: LightningBalances

        func lightningMsat(_ node: String) -> UInt64 { lightning.nodes[node] ?? 0 }

        var description: String {
            "provider chain \(providerChainSat), payee chain \(payeeChainSat), client chain \(clientChainSat), "
                + "lightning \(lightning.nodes) in flight \(lightning.inFlightMsat) fees \(lightning.feesCollectedMsat)"
        }
    }

    /// An address the payee hands the client, a route for `amountSat` to it through the
    /// provider, and the balances before paying.
    func routeToPayee(amountSat: Int64, file: StaticString = #filePath, line: UInt = #line) async throws
        -> (destination: Address, decision: RouteDecision, before: Balances) {
        let destination = try await client.onchainEndpoint(of: payee.contact)
        let decision = try await routeThroughProvider(amountSat: amountSat, to: destination, file: file, line: line)
        return (destination, decision, try await balances())
    }

    func balances() async throws -> Balances {
        let clientSavings = client.savings
        _ = try await clientSavings.sync()
        return Balances(providerChainSat: try await provider.chainBalance(), payeeChainSat: try await payee.chainBalance(),
                        clientChainSat: await clientSavings.balance().total, lightning: hub.lightning.balances())
    }

    /// The fee a mined or mempool transaction pays: its inputs (looked up on the chain)
    /// minus its outputs.
    func minerFee(of txid: TransactionID) throws -> Int64 {
        guard let transaction = hub.chain.transaction(txid)?.transaction else { throw NodeTestFailure("no transaction \(txid)") }
        var inputs: Int64 = 0
        for input in transaction.inputs {
            guard let parent = hub.chain.transaction(input.previousOutput.txid)?.transaction else {
                throw NodeTestFailure("no parent \(input.previousOutput.txid)")
            }
            inputs += parent.outputs[Int(input.previousOutput.index)].value
        }
        return inputs - transaction.outputs.reduce(0) { $0 + $1.value }
    }

    /// Polls until `condition` holds; fails the test (and throws) after `seconds`.
    func eventually(_ what: String, seconds: Double = 30, file: StaticString = #filePath, line: UInt = #line,
                    _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        let logs = (provider.log.all.suffix(30) + client.log.all.suffix(30)).joined(separator: "\n")
        XCTFail("timed out waiting for \(what)\n\(logs)", file: file, line: line)
        throw NodeTestFailure("timed out waiting for \(what)")
    }

    func shutDown() async {
        await client.shutDown()
        await provider.shutDown()
        await payee.shutDown()
        await hub.shutDown()
    }
}

/// Every transaction in the mempool and the active chain.
func everyTransaction(on hub: HubFixture) -> [Transaction] {
    var all = hub.chain.mempoolEntries().compactMap { hub.chain.transaction($0.entry.txid)?.transaction }
    for height in 0...hub.height { all += hub.chain.block(atHeight: height)?.block.transactions ?? [] }
    return all
}

/// Transactions in the mempool or the active chain that spend `outpoint`.
func spends(of outpoint: OutPoint, on hub: HubFixture) -> [Transaction] {
    everyTransaction(on: hub).filter { $0.inputs.contains { $0.previousOutput == outpoint } }
}
