import Bitcoin

/// The headers of an Electrum server that the node has seen link, one to the next, up to a
/// block LND named as its best (`getinfo`'s `block_height` and `block_hash`, read
/// together). A server the operator does not run could answer with a header it made up
/// (its merkle root a lock's txid, an empty branch) and so prove a confirmation no miner
/// made; a header that links by hash to LND's best block is in the chain LND follows,
/// whatever the server is. Pure: the backend fetches, this decides (docs/ELECTRUM.md,
/// "Whose chain?").
struct ElectrumAnchoredChain: Sendable, Equatable {
    /// How many headers are kept (about twenty weeks of blocks, a few MiB): far more than
    /// any deadline the node counts, so a recovery's scan or a wallet's older coins are
    /// checked once; an older header is fetched and linked again when asked for.
    static let defaultLimit = 20_160

    /// Why headers were not adopted.
    enum Refusal: Error, Equatable, Sendable {
        /// The server sent `got` headers where `expected` lead to LND's best block (it has
        /// not reached that block yet, or it withholds it).
        case short(expected: Int, got: Int)
        /// The header at `height` does not name the one before it as its parent.
        case notLinked(height: Int)
        /// The last header is not LND's best block at that height: the server follows
        /// another chain (a fork, a reorganisation one of the two has not seen yet, or a
        /// made-up one).
        case notLNDsBlock(height: Int, server: BlockHash, lnd: BlockHash)
    }

    private(set) var base = 0
    private(set) var headers: [BlockHeader] = []
    let limit: Int

    init(limit: Int = defaultLimit) {
        self.limit = max(1, limit)
    }

    /// The highest anchored height, nil while nothing is.
    var top: Int? { headers.isEmpty ? nil : base + headers.count - 1 }

    /// The anchored header at `height`, if there is one.
    func header(atHeight height: Int) -> BlockHeader? {
        guard height >= base, height - base < headers.count else { return nil }
        return headers[height - base]
    }

    /// Adopts `fetched`, the server's headers from height `start`, once they link to each
    /// other and the last is `reference`: LND's best block, or the parent an anchored header
    /// names (so older headers join the run below it). Kept headers stay where they link:
    /// below, when the first fetched one names the kept one before it as its parent; above,
    /// when the kept one after names the last fetched one. Any other kept header is
    /// dropped, so the chain is always one linked run. Past `limit`, the lowest go.
    mutating func adopt(_ fetched: [BlockHeader], from start: Int,
                        reaching reference: (height: Int, hash: BlockHash)) throws(Refusal) {
        let expected = reference.height - start + 1
        guard expected > 0, fetched.count == expected else {
            throw .short(expected: max(expected, 0), got: fetched.count)
        }
        var hashes: [BlockHash] = []
        hashes.reserveCapacity(fetched.count)
        for (offset, header) in fetched.enumerated() {
            if let parent = hashes.last, header.previousBlockHash != parent { throw .notLinked(height: start + offset) }
            hashes.append(header.hash)
        }
        guard hashes.last == reference.hash else {
            throw .notLNDsBlock(height: reference.height, server: hashes[hashes.count - 1], lnd: reference.hash)
        }
        var run: [BlockHeader] = []
        var runBase = start
        if let below = header(atHeight: start - 1), fetched[0].previousBlockHash == below.hash {
            run = Array(headers[..<(start - base)])
            runBase = base
        }
        run += fetched
        if let above = header(atHeight: reference.height + 1), above.previousBlockHash == reference.hash {
            run += headers[(reference.height + 1 - base)...]
        }
        if run.count > limit {
            let dropped = run.count - limit
            run.removeFirst(dropped)
            runBase += dropped
        }
        base = runBase
        headers = run
    }
}
