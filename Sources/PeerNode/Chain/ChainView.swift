import Bitcoin

/// The chain as the follower has processed it: the hashes of the last `window` blocks,
/// ending at the tip it last connected. Pure: the follower asks the backend, this decides.
///
/// A new backend tip either extends the view, or forks from it at some height; blocks above
/// the fork are rewound (reported as disconnected) before the new branch is connected.
/// `ForkSearch` finds that height one `getblockhash` at a time.
public struct ChainView: Sendable, Hashable {
    /// How many recent hashes are kept: the deepest reorg the view can follow.
    public let window: Int
    /// Height of `hashes[0]`.
    private var baseHeight: Int
    private var hashes: [BlockHash]

    /// A view whose next block is at `height`, whose parent (the block at `height - 1`) is
    /// `parent`; nil only when starting at genesis.
    public init(nextHeight height: Int, parent: BlockHash?, window: Int = 288) {
        self.window = max(window, 1)
        if let parent, height > 0 {
            baseHeight = height - 1
            hashes = [parent]
        } else {
            baseHeight = max(height, 0)
            hashes = []
        }
    }

    /// The last connected block (or the starting parent); nil before the first block of a
    /// view that starts at genesis.
    public var tip: ChainTip? {
        hashes.last.map { ChainTip(height: baseHeight + hashes.count - 1, hash: $0) }
    }

    /// Height of the next block to connect.
    public var nextHeight: Int { baseHeight + hashes.count }

    /// The lowest height whose hash is still kept.
    public var lowestHeight: Int { baseHeight }

    public func hash(atHeight height: Int) -> BlockHash? {
        let index = height - baseHeight
        return hashes.indices.contains(index) ? hashes[index] : nil
    }

    /// Connects a block on the tip. False when it does not build on the tip: the backend's
    /// chain changed while it was being walked, and a new fork search is due.
    public mutating func connect(_ hash: BlockHash, previous: BlockHash) -> Bool {
        if let tip, tip.hash != previous { return false }
        hashes.append(hash)
        if hashes.count > window {
            let dropped = hashes.count - window
            hashes.removeFirst(dropped)
            baseHeight += dropped
        }
        return true
    }

    /// Removes every block above `height`, returning them tip first (the order in which
    /// they are disconnected).
    public mutating func rewind(toHeight height: Int) -> [ChainTip] {
        var removed: [ChainTip] = []
        while let tip, tip.height > height {
            removed.append(tip)
            hashes.removeLast()
        }
        return removed
    }

    /// Starts looking for the last block this view shares with a backend whose tip is `remote`.
    public func forkSearch(toward remote: ChainTip) -> ForkSearch {
        ForkSearch(view: self, remote: remote)
    }
}

/// Finds the highest block the view shares with the backend's chain by walking down from
/// the lower of the two tips, asking the backend for its hash at each height. Each step is
/// a value: the follower performs `.compare(height)` with `getblockhash` and feeds the answer.
public struct ForkSearch: Sendable {
    public enum Step: Sendable, Equatable {
        /// Ask the backend for its block hash at this height and `feed` it.
        case compare(height: Int)
        /// The chains agree up to this height: rewind to it, then connect from the next.
        case found(height: Int)
        /// No kept block is on the backend's chain: a reorg deeper than the window.
        case beyondWindow
    }

    public private(set) var step: Step
    private let view: ChainView
    private let remote: ChainTip

    init(view: ChainView, remote: ChainTip) {
        self.view = view
        self.remote = remote
        guard let tip = view.tip else {
            // Nothing connected yet (a view starting at genesis): nothing to rewind.
            step = .found(height: view.nextHeight - 1)
            return
        }
        step = .beyondWindow
        advance(to: min(tip.height, remote.height))
    }

    /// The backend's hash at the height of the current `.compare` step.
    public mutating func feed(_ remoteHash: BlockHash) {
        guard case .compare(let height) = step else { return }
        judge(height: height, remoteHash: remoteHash)
    }

    private mutating func advance(to height: Int) {
        guard height >= view.lowestHeight else {
            step = .beyondWindow
            return
        }
        // The backend's own tip needs no question.
        if height == remote.height {
            judge(height: height, remoteHash: remote.hash)
        } else {
            step = .compare(height: height)
        }
    }

    private mutating func judge(height: Int, remoteHash: BlockHash) {
        if view.hash(atHeight: height) == remoteHash {
            step = .found(height: height)
        } else {
            advance(to: height - 1)
        }
    }
}
