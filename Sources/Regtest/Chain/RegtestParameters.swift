import Bitcoin

/// Bitcoin Core's regtest consensus numbers the hub needs outside the kernel: the kernel
/// enforces them on every block; the hub uses them to build blocks the kernel accepts and
/// to judge mempool transactions the way Core's mempool does.
public enum RegtestParameters {
    /// Regtest halves the subsidy every 150 blocks (mainnet: 210,000).
    public static let subsidyHalvingInterval = 150
    public static let initialSubsidy: Int64 = 50 * 100_000_000
    /// A coinbase output can be spent by a transaction in a block 100 blocks deeper.
    public static let coinbaseMaturity = 100
    /// The easiest target regtest allows, used for every block (no retargeting on regtest).
    public static let bits: UInt32 = 0x207f_ffff
    /// BIP9 top bits with no deployment signalled.
    public static let blockVersion: Int32 = 0x2000_0000
    public static let maxBlockWeight = 4_000_000
    /// Weight kept free for the coinbase when filling a block, as Core's miner does.
    public static let coinbaseWeightReserve = 4_000
    /// nLockTime values below this are heights, above it Unix times.
    public static let lockTimeThreshold: UInt32 = 500_000_000

    /// The block subsidy at `height`: 50 BTC halved every 150 blocks, zero after 64 halvings.
    public static func subsidy(atHeight height: Int) -> Int64 {
        let halvings = height / subsidyHalvingInterval
        return halvings >= 64 ? 0 : initialSubsidy >> halvings
    }

    /// The regtest genesis block (Core's chainparams: time 1296688602, nonce 2), so the hub
    /// can serve it like any other block.
    public static let genesisBlock: Block = {
        let scriptSig = [UInt8](hex: "04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72"
            + "206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73")!
        let pubkeyScript = [UInt8](hex: "4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f"
            + "4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac")!
        let coinbase = Transaction(version: 1,
                                   inputs: [TransactionInput(previousOutput: .null, scriptSig: Script(bytes: scriptSig))],
                                   outputs: [TransactionOutput(value: initialSubsidy, scriptPubKey: Script(bytes: pubkeyScript))])
        let header = BlockHeader(version: 1, previousBlockHash: .zero, merkleRoot: coinbase.txid.bytes,
                                 time: 1_296_688_602, bits: bits, nonce: 2)
        return Block(header: header, transactions: [coinbase])
    }()
}
