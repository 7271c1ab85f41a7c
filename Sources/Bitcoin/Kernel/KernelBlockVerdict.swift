/// What the kernel's chainstate manager made of a block handed to it.
public enum KernelBlockVerdict: Equatable, Sendable {
    /// Fully validated and connected: the block is now in the kernel's active chain (it may
    /// have taken ancestors with it, as in a reorg to a longer branch).
    case connected
    /// Stored but not connected: a valid-so-far block on a branch with no more work than the
    /// active one, or a block the kernel already had. No verdict was issued for it.
    case notConnected
    /// Refused. `block` is the hash of the block the kernel rejected (the one handed in, or an
    /// ancestor it tried to connect with it); `reason` is Core's reject reason and debug
    /// message as its log states them, e.g. `bad-txnmrklroot, hashMerkleRoot mismatch`.
    case rejected(block: BlockHash, result: KernelBlockValidationResult, reason: String)
}

/// `btck_BlockValidationResult`: the kernel's category for an invalid block.
public enum KernelBlockValidationResult: UInt32, Equatable, Sendable {
    case unset = 0
    /// Invalid by consensus rules not covered by the cases below.
    case consensus = 1
    /// Known invalid from before, reason not kept.
    case cachedInvalid = 2
    /// Invalid proof of work or time too old.
    case invalidHeader = 3
    /// The block's data does not match what the proof of work commits to (merkle root,
    /// witness commitment, duplicate transactions).
    case mutated = 4
    case missingPrevious = 5
    case invalidPrevious = 6
    /// More than two hours in the future.
    case timeFuture = 7
    case headerLowWork = 8
    /// A value this wrapper does not know (a newer kernel).
    case unknown = 0xffff_ffff
}
