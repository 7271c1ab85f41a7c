import Bitcoin
@testable import PeerNode
import Synchronization
import Transport

/// A loopback Electrum server (protocol 1.6, regtest) that answers from a world the test
/// sets and may change at any time: its header chain, its transactions, where its
/// histories place them. A lying server is one whose world is made up; nothing it says
/// is checked here, which is the point.
final class ScriptedElectrumServer: Sendable {
    struct World: Sendable {
        /// The server's best chain, by height from 0.
        var headers: [BlockHeader] = []
        var transactions: [TransactionID: Transaction] = [:]
        /// Confirmation height by txid (absent: unconfirmed); every transaction is proved
        /// as the only one of its block (position 0, an empty branch).
        var heights: [TransactionID: Int] = [:]
        /// Headers served by `blockchain.block.header(s)` in place of the chain's at a
        /// height (a server that tells each caller what suits it).
        var lies: [Int: BlockHeader] = [:]
        /// What `blockchain.transaction.broadcast` does: answer the txid (and relay
        /// nothing: the server has no network), or refuse with this message.
        var broadcastRefusal: String?
        /// Every transaction broadcast to it, in order.
        var broadcasts: [TransactionID] = []

        func header(atHeight height: Int) -> BlockHeader? {
            lies[height] ?? (headers.indices.contains(height) ? headers[height] : nil)
        }
    }

    let port: Int
    private let listener: TCPListener
    private let worldState: Mutex<World>
    private let serving: Mutex<Task<Void, Never>?> = Mutex(nil)
    private let peers = Mutex<[FakeElectrumPeer]>([])

    init(world: World, loop: EventLoop) async throws {
        worldState = Mutex(world)
        listener = try await TCPListener.bind(loop: loop)
        port = listener.port
        let task = Task { [self] in
            await withDiscardingTaskGroup { group in
                while let connection = try? await self.listener.accept() {
                    group.addTask { await self.serve(connection) }
                }
            }
        }
        serving.withLock { $0 = task }
    }

    func update(_ change: (inout World) -> Void) { worldState.withLock { change(&$0) } }

    var world: World { worldState.withLock { $0 } }

    /// Tells every connection the chain's tip, as a server does when a block comes.
    func announceTip() async {
        guard let tip = worldState.withLock({ world in world.headers.last.map { (world.headers.count - 1, $0) } }) else { return }
        let message: JSONValue = .object(["jsonrpc": .string("2.0"), "method": .string("blockchain.headers.subscribe"),
                                          "params": .array([.object(["height": .integer(Int64(tip.0)),
                                                                     "hex": .string(tip.1.serialized.hex)])])])
        for peer in peers.withLock({ $0 }) { try? await peer.send(message) }
    }

    func close() async {
        await listener.close()
        serving.withLock { $0?.cancel() }
    }

    private func serve(_ connection: TCPConnection) async {
        let peer = FakeElectrumPeer(stream: connection)
        peers.withLock { $0.append(peer) }
        while let request = try? await peer.readMessage() {
            let params = request["params"]?.arrayValue ?? []
            let answer = worldState.withLock { Self.answer(request["method"]?.stringValue ?? "", params, in: &$0) }
            var reply: [String: JSONValue] = ["jsonrpc": .string("2.0"), "id": request["id"] ?? .null]
            switch answer {
            case .success(let result): reply["result"] = result
            case .failure(let error): reply["error"] = .object(["code": .integer(1), "message": .string(error.message)])
            }
            do { try await peer.send(.object(reply)) } catch { break }
        }
        await connection.close()
    }

    struct Refusal: Error { let message: String }

    private static func answer(_ method: String, _ params: [JSONValue], in world: inout World) -> Result<JSONValue, Refusal> {
        func int(_ index: Int) -> Int? { params.count > index ? params[index].int64Value.map { Int($0) } : nil }
        func txid(_ index: Int) -> TransactionID? {
            params.count > index ? params[index].stringValue.flatMap { try? TransactionID(hex: $0) } : nil
        }
        switch method {
        case "server.version":
            return .success(.array([.string("ScriptedX 1.0"), .string("1.6")]))
        case "server.features":
            return .success(.object(["genesis_hash": .string("0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206")]))
        case "blockchain.headers.subscribe":
            guard let tip = world.headers.last else { return .failure(Refusal(message: "no chain")) }
            return .success(.object(["height": .integer(Int64(world.headers.count - 1)), "hex": .string(tip.serialized.hex)]))
        case "blockchain.block.header":
            guard let height = int(0), let header = world.header(atHeight: height) else {
                return .failure(Refusal(message: "height out of range"))
            }
            return .success(.string(header.serialized.hex))
        case "blockchain.block.headers":
            guard let start = int(0), let count = int(1), start >= 0, count >= 0 else { return .failure(Refusal(message: "bad range")) }
            let slice = stride(from: start, to: min(start + count, world.headers.count), by: 1).compactMap { world.header(atHeight: $0) }
            return .success(.object(["count": .integer(Int64(slice.count)), "max": .integer(2016),
                                     "headers": .array(slice.map { .string($0.serialized.hex) })]))
        case "blockchain.scripthash.subscribe":
            return .success(.null)
        case "blockchain.scripthash.get_history":
            guard let hash = params.first?.stringValue else { return .failure(Refusal(message: "no script hash")) }
            let items = world.transactions.values.filter { transaction in
                transaction.outputs.contains { ElectrumScriptHash(scriptPubKey: $0.scriptPubKey.bytes).hex == hash }
            }.map { transaction -> JSONValue in
                .object(["tx_hash": .string(transaction.txid.hex), "height": .integer(Int64(world.heights[transaction.txid] ?? 0))])
            }
            return .success(.array(items))
        case "blockchain.scripthash.get_mempool", "blockchain.scripthash.listunspent":
            return .success(.array([]))
        case "blockchain.transaction.get":
            guard let txid = txid(0), let transaction = world.transactions[txid] else {
                return .failure(Refusal(message: "No such mempool or blockchain transaction"))
            }
            return .success(.string(transaction.serialized.hex))
        case "blockchain.transaction.broadcast":
            guard let hex = params.first?.stringValue, let transaction = try? Transaction(hex: hex) else {
                return .failure(Refusal(message: "TX decode failed"))
            }
            world.broadcasts.append(transaction.txid)
            if let refusal = world.broadcastRefusal { return .failure(Refusal(message: refusal)) }
            return .success(.string(transaction.txid.hex))
        case "blockchain.transaction.get_merkle":
            guard let txid = txid(0), let height = world.heights[txid] else { return .failure(Refusal(message: "not confirmed")) }
            return .success(.object(["block_height": .integer(Int64(height)), "merkle": .array([]), "pos": .integer(0)]))
        default:
            return .failure(Refusal(message: "unknown method \(method)"))
        }
    }
}

/// Header chains for the scripted server: linked, proof of work not checked (regtest bits).
enum ScriptedChain {
    /// `count` headers on `parent`; `roots` sets the merkle root at an offset (a
    /// transaction alone in its block has its txid as the root).
    static func headers(on parent: BlockHash, count: Int, salt: UInt8, roots: [Int: [UInt8]] = [:]) -> [BlockHeader] {
        var headers: [BlockHeader] = []
        var previous = parent
        for offset in 0..<count {
            let root = roots[offset] ?? [UInt8](repeating: salt, count: 31) + [UInt8(offset & 0xff)]
            let header = BlockHeader(version: 4, previousBlockHash: previous, merkleRoot: root,
                                     time: 1_700_000_000 + UInt32(offset) * 600, bits: 0x207fffff, nonce: UInt32(salt))
            headers.append(header)
            previous = header.hash
        }
        return headers
    }
}
