#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CBitcoinKernel
import Synchronization

/// A regtest chain validated by Bitcoin Core itself: a libbitcoinkernel context on regtest
/// parameters and its chainstate manager, with the block-tree and UTXO databases in memory.
/// Blocks handed to `process(_:)` are fully validated by Core (proof of work, merkle root,
/// witness commitment, BIP34, subsidy, every script) and connected when they extend the
/// most-work chain, reorganising to a longer branch as Core does.
///
/// The kernel still writes block files, so each instance owns a fresh temporary directory,
/// removed by `close()`. One instance is used from one thread at a time (callers serialize,
/// e.g. behind a mutex); it is not `Sendable`.
public final class KernelChainstate {
    /// `btck_ChainType_REGTEST`.
    static let regtestChainType: UInt8 = 4

    let library: KernelChainstateLibrary
    private let recorder: BlockCheckRecorder
    private let log: KernelLog?
    private var context: OpaquePointer?
    private var manager: OpaquePointer?
    /// The temporary data directory (blocks under `blocks/`).
    public let directory: String

    /// Loads the kernel from `libraryPath`, or `$PEERNODE_KERNEL_LIB` when nil, and starts a
    /// chain holding only the regtest genesis block.
    public init(libraryPath: String? = nil) throws {
        // The script verifier resolves the path and reports a missing library with the setup step.
        let path = try KernelVerifier(libraryPath: libraryPath).libraryPath
        let library = try KernelChainstateLibrary.load(path: path)
        self.library = library
        recorder = BlockCheckRecorder(library: library)
        log = KernelLog.shared(library)
        directory = try makeTemporaryDirectory(prefix: "peernode-chainstate-")
        do {
            try start()
        } catch {
            close()
            throw error
        }
    }

    private func start() throws {
        let lib = library
        let mark = log?.mark ?? 0
        guard let parameters = lib.chainParametersCreate(Self.regtestChainType) else {
            throw failure("btck_chain_parameters_create", since: mark)
        }
        defer { lib.chainParametersDestroy(parameters) }
        guard let options = lib.contextOptionsCreate() else { throw failure("btck_context_options_create", since: mark) }
        defer { lib.contextOptionsDestroy(options) }
        lib.contextOptionsSetChainParams(options, parameters)
        // The kernel takes ownership of this retain and gives it back through
        // `releaseRecorder` when the context (the last holder of the callbacks) is destroyed.
        let userData = Unmanaged.passRetained(recorder).toOpaque()
        let callbacks = peernode_btck_validation_interface_callbacks(
            user_data: userData, user_data_destroy: releaseRecorder, block_checked: blockChecked,
            pow_valid_block: nil, block_connected: nil, block_disconnected: nil)
        lib.contextOptionsSetValidationInterface(UnsafeMutableRawPointer(options), callbacks)
        guard let context = lib.contextCreate(options) else { throw failure("btck_context_create", since: mark) }
        self.context = context

        let blocks = directory + "/blocks"
        let managerOptions = directory.withCString { data in
            blocks.withCString { blocksPath in
                lib.managerOptionsCreate(context, data, strlen(data), blocksPath, strlen(blocksPath))
            }
        }
        guard let managerOptions else { throw failure("btck_chainstate_manager_options_create", since: mark) }
        defer { lib.managerOptionsDestroy(managerOptions) }
        // No validation thread pool: regtest blocks are tiny and the machine is shared.
        lib.managerOptionsSetWorkerThreads(managerOptions, 0)
        lib.managerOptionsBlockTreeInMemory(managerOptions, 1)
        lib.managerOptionsChainstateInMemory(managerOptions, 1)
        guard let manager = lib.managerCreate(managerOptions) else {
            throw failure("btck_chainstate_manager_create", since: mark)
        }
        self.manager = manager
    }

    deinit { close() }

    /// Destroys the chainstate manager and context and removes the temporary directory.
    /// Safe to call more than once.
    public func close() {
        if let manager { library.managerDestroy(manager) }
        manager = nil
        if let context { library.contextDestroy(context) }
        context = nil
        removeDirectoryTree(directory)
    }

    /// Hands `block` to the chainstate manager and reports the verdict Core issued for it
    /// through the validation interface's `block_checked` callback. `process_block`'s own
    /// return value says nothing about validity (an invalid block also returns 0), so it is
    /// only used when no verdict arrived at all.
    public func process(_ block: Block) throws -> KernelBlockVerdict {
        let manager = try openManager()
        let raw = block.serialized
        let kernelBlock = raw.withUnsafeBytes { library.blockCreate($0.baseAddress, $0.count) }
        guard let kernelBlock else {
            throw BitcoinError.kernelCallFailed(function: "btck_block_create", status: -1)
        }
        defer { library.blockDestroy(kernelBlock) }

        let mark = log?.mark ?? 0
        recorder.reset()
        var isNew: Int32 = 0
        let status = library.managerProcessBlock(manager, kernelBlock, &isNew)
        let checks = recorder.take()

        let hash = block.hash
        let ours = checks.last { $0.hash == hash.bytes }
        let failed = ours.flatMap { $0.isValid ? nil : $0 } ?? checks.first { !$0.isValid }
        if let failed {
            return .rejected(block: try BlockHash(bytes: failed.hash), result: failed.result,
                             reason: rejectReason(since: mark) ?? "no reason logged (\(failed.result))")
        }
        if ours != nil { return .connected }
        if status != 0 {
            return .rejected(block: hash, result: .unset,
                             reason: rejectReason(since: mark) ?? "btck_chainstate_manager_process_block returned \(status)")
        }
        return .notConnected
    }

    /// The height of the kernel's active chain tip.
    public var height: Int {
        get throws { Int(library.chainGetHeight(try activeChain())) }
    }

    /// The hash of the kernel's active chain tip.
    public var tipHash: BlockHash {
        get throws {
            guard let hash = try blockHash(atHeight: try height) else {
                throw BitcoinError.kernelCallFailed(function: "btck_chain_get_by_height", status: -1)
            }
            return hash
        }
    }

    /// The hash of the active chain's block at `height`, or nil above the tip.
    public func blockHash(atHeight height: Int) throws -> BlockHash? {
        guard height >= 0, height <= Int(Int32.max) else { return nil }
        guard let entry = library.chainGetByHeight(try activeChain(), Int32(height)),
              let hash = library.entryGetBlockHash(entry) else { return nil }
        return try BlockHash(bytes: library.bytes(ofHash: hash))
    }

    /// Whether the kernel's block index holds `hash` (on any branch, valid or not).
    public func knows(_ hash: BlockHash) throws -> Bool {
        let manager = try openManager()
        guard let kernelHash = hash.bytes.withUnsafeBufferPointer({ library.blockHashCreate($0.baseAddress) }) else {
            throw BitcoinError.kernelCallFailed(function: "btck_block_hash_create", status: -1)
        }
        defer { library.blockHashDestroy(kernelHash) }
        return library.managerEntryByHash(manager, kernelHash) != nil
    }

    private func openManager() throws -> OpaquePointer {
        guard let manager else { throw BitcoinError.kernelUnavailable("the chainstate was closed") }
        return manager
    }

    private func activeChain() throws -> OpaquePointer {
        guard let chain = library.managerActiveChain(try openManager()) else {
            throw BitcoinError.kernelCallFailed(function: "btck_chainstate_manager_get_active_chain", status: -1)
        }
        return chain
    }

    /// Core logs the state of a refused block as `ProcessNewBlock: AcceptBlock FAILED (<reason>)`
    /// (header and context-free checks) or `ConnectTip: ConnectBlock <hash> failed, <reason>`
    /// (transactions and scripts). The reason is the text after those markers.
    private func rejectReason(since mark: Int) -> String? {
        guard let lines = log?.lines(since: mark) else { return nil }
        for line in lines {
            if let range = line.firstRange(of: "FAILED ("), let end = line.lastIndex(of: ")"),
               range.upperBound <= end {
                return String(line[range.upperBound..<end])
            }
            if line.contains("ConnectBlock"), let range = line.firstRange(of: " failed, ") {
                return String(line[range.upperBound...])
            }
        }
        return nil
    }

    private func failure(_ function: String, since mark: Int) -> BitcoinError {
        let detail = log?.lines(since: mark).last.map { ": \($0)" } ?? ""
        return .kernelUnavailable("\(function) failed\(detail)")
    }
}

/// Collects the `block_checked` verdicts of one `process_block` call. The kernel runs its
/// validation callbacks synchronously on the calling thread, so the calls of one
/// `process(_:)` land between its `reset()` and `take()`; the lock makes the object safe to
/// share with the kernel regardless.
final class BlockCheckRecorder: Sendable {
    struct Check: Sendable {
        var hash: [UInt8]
        var isValid: Bool
        var result: KernelBlockValidationResult
    }

    let library: KernelChainstateLibrary
    private let checks = Mutex<[Check]>([])

    init(library: KernelChainstateLibrary) { self.library = library }

    func reset() { checks.withLock { $0.removeAll() } }
    func take() -> [Check] { checks.withLock { current in defer { current.removeAll() }; return current } }

    fileprivate func record(block: OpaquePointer?, state: OpaquePointer?) {
        guard let block else { return }
        // The kernel hands the callee its own reference to the block; it is released here.
        defer { library.blockDestroy(block) }
        guard let state, let hash = library.blockGetHash(block) else { return }
        defer { library.blockHashDestroy(hash) }
        let check = Check(hash: library.bytes(ofHash: hash),
                          isValid: library.validationStateMode(state) == 0, // btck_ValidationMode_VALID
                          result: KernelBlockValidationResult(rawValue: library.validationStateResult(state)) ?? .unknown)
        checks.withLock { $0.append(check) }
    }
}

private let blockChecked: peernode_btck_block_callback = { userData, block, state in
    guard let userData else { return }
    Unmanaged<BlockCheckRecorder>.fromOpaque(userData).takeUnretainedValue()
        .record(block: block.map(OpaquePointer.init), state: state.map(OpaquePointer.init))
}

private let releaseRecorder: peernode_btck_destroy_callback = { userData in
    guard let userData else { return }
    Unmanaged<BlockCheckRecorder>.fromOpaque(userData).release()
}
