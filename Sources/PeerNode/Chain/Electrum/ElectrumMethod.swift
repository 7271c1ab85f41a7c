/// The protocol's method names, written once.
enum ElectrumMethod {
    static let version = "server.version"
    static let features = "server.features"
    static let headersSubscribe = "blockchain.headers.subscribe"
    static let blockHeader = "blockchain.block.header"
    static let blockHeaders = "blockchain.block.headers"
    static let scriptHashSubscribe = "blockchain.scripthash.subscribe"
    static let history = "blockchain.scripthash.get_history"
    static let unspent = "blockchain.scripthash.listunspent"
    static let mempool = "blockchain.scripthash.get_mempool"
    static let transaction = "blockchain.transaction.get"
    static let broadcast = "blockchain.transaction.broadcast"
    static let estimateFee = "blockchain.estimatefee"
    static let merkle = "blockchain.transaction.get_merkle"
}
