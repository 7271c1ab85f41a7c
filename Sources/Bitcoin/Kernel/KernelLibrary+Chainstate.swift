#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CBitcoinKernel

/// The chainstate half of libbitcoinkernel (context, chainstate manager, blocks, validation
/// callbacks), resolved from the same library `KernelLibrary` opened for script checks. It
/// is a separate table so that script verification keeps working with any v31 build and
/// only the regtest chain needs these symbols.
///
/// Like `KernelLibrary`, every field is set once and the library is never closed, so the
/// value is `Sendable`.
struct KernelChainstateLibrary: Sendable {
    typealias Create0 = @convention(c) () -> OpaquePointer?
    typealias Create1 = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias Destroy = @convention(c) (OpaquePointer?) -> Void
    typealias CreateChainParameters = @convention(c) (UInt8) -> OpaquePointer?
    typealias SetPointer = @convention(c) (OpaquePointer?, OpaquePointer?) -> Void
    typealias SetInt = @convention(c) (OpaquePointer?, Int32) -> Void
    typealias CreateManagerOptions = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int,
                                                     UnsafePointer<CChar>?, Int) -> OpaquePointer?
    typealias CreateFromBytes = @convention(c) (UnsafeRawPointer?, Int) -> OpaquePointer?
    typealias ProcessBlock = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<Int32>?) -> Int32
    typealias HashToBytes = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?) -> Void
    typealias HashCreate = @convention(c) (UnsafePointer<UInt8>?) -> OpaquePointer?
    typealias GetInt32 = @convention(c) (OpaquePointer?) -> Int32
    typealias ChainGetByHeight = @convention(c) (OpaquePointer?, Int32) -> OpaquePointer?
    typealias LookupByHash = @convention(c) (OpaquePointer?, OpaquePointer?) -> OpaquePointer?
    typealias GetMode = @convention(c) (OpaquePointer?) -> UInt8
    typealias GetResult = @convention(c) (OpaquePointer?) -> UInt32

    /// `btck_DestroyCallback`: frees the user data the kernel was given.
    typealias DestroyCallback = @convention(c) (UnsafeMutableRawPointer?) -> Void
    /// `btck_ValidationInterfaceBlockChecked` (user_data, btck_Block* owned by the callee,
    /// const btck_BlockValidationState*); the three other validation callbacks share this shape.
    typealias BlockCallback = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?) -> Void
    /// `btck_LogCallback` (user_data, message, length).
    typealias LogCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int) -> Void
    typealias CreateLoggingConnection = @convention(c) (LogCallback?, UnsafeMutableRawPointer?, DestroyCallback?) -> OpaquePointer?

    /// `btck_context_options_set_validation_interface` takes its callbacks struct by value;
    /// the C shim declares that struct so the C compiler lowers the call for this processor.
    typealias SetValidationInterface = peernode_btck_set_validation_interface

    let path: String
    let chainParametersCreate: CreateChainParameters
    let chainParametersDestroy: Destroy
    let contextOptionsCreate: Create0
    let contextOptionsSetChainParams: SetPointer
    let contextOptionsSetValidationInterface: SetValidationInterface
    let contextOptionsDestroy: Destroy
    let contextCreate: Create1
    let contextDestroy: Destroy
    let managerOptionsCreate: CreateManagerOptions
    let managerOptionsSetWorkerThreads: SetInt
    let managerOptionsBlockTreeInMemory: SetInt
    let managerOptionsChainstateInMemory: SetInt
    let managerOptionsDestroy: Destroy
    let managerCreate: Create1
    let managerDestroy: Destroy
    let managerProcessBlock: ProcessBlock
    let managerActiveChain: Create1
    let managerEntryByHash: LookupByHash
    let blockCreate: CreateFromBytes
    let blockDestroy: Destroy
    let blockGetHash: Create1
    let blockHashCreate: HashCreate
    let blockHashToBytes: HashToBytes
    let blockHashDestroy: Destroy
    let chainGetHeight: GetInt32
    let chainGetByHeight: ChainGetByHeight
    let entryGetBlockHash: Create1
    let validationStateMode: GetMode
    let validationStateResult: GetResult
    let loggingConnectionCreate: CreateLoggingConnection

    /// Libraries already opened, by path: each is opened and resolved once per process.
    private static let cache = KernelLibraryCache<KernelChainstateLibrary>()

    static func load(path: String) throws -> KernelChainstateLibrary {
        try cache.load(path: path) { try KernelChainstateLibrary(opening: $0) }
    }

    private init(opening path: String) throws {
        // The script-verification loader already opened this path and reported a missing file;
        // this second dlopen only takes another reference to the same handle.
        let handle = try KernelHandle.open(path)
        func symbol<F>(_ name: String, as type: F.Type) throws -> F { try handle.symbol(name, as: type) }
        do {
            self.path = path
            chainParametersCreate = try symbol("btck_chain_parameters_create", as: CreateChainParameters.self)
            chainParametersDestroy = try symbol("btck_chain_parameters_destroy", as: Destroy.self)
            contextOptionsCreate = try symbol("btck_context_options_create", as: Create0.self)
            contextOptionsSetChainParams = try symbol("btck_context_options_set_chainparams", as: SetPointer.self)
            contextOptionsSetValidationInterface = try symbol("btck_context_options_set_validation_interface",
                                                              as: SetValidationInterface.self)
            contextOptionsDestroy = try symbol("btck_context_options_destroy", as: Destroy.self)
            contextCreate = try symbol("btck_context_create", as: Create1.self)
            contextDestroy = try symbol("btck_context_destroy", as: Destroy.self)
            managerOptionsCreate = try symbol("btck_chainstate_manager_options_create", as: CreateManagerOptions.self)
            managerOptionsSetWorkerThreads = try symbol("btck_chainstate_manager_options_set_worker_threads_num",
                                                        as: SetInt.self)
            managerOptionsBlockTreeInMemory = try symbol(
                "btck_chainstate_manager_options_update_block_tree_db_in_memory", as: SetInt.self)
            managerOptionsChainstateInMemory = try symbol(
                "btck_chainstate_manager_options_update_chainstate_db_in_memory", as: SetInt.self)
            managerOptionsDestroy = try symbol("btck_chainstate_manager_options_destroy", as: Destroy.self)
            managerCreate = try symbol("btck_chainstate_manager_create", as: Create1.self)
            managerDestroy = try symbol("btck_chainstate_manager_destroy", as: Destroy.self)
            managerProcessBlock = try symbol("btck_chainstate_manager_process_block", as: ProcessBlock.self)
            managerActiveChain = try symbol("btck_chainstate_manager_get_active_chain", as: Create1.self)
            managerEntryByHash = try symbol("btck_chainstate_manager_get_block_tree_entry_by_hash", as: LookupByHash.self)
            blockCreate = try symbol("btck_block_create", as: CreateFromBytes.self)
            blockDestroy = try symbol("btck_block_destroy", as: Destroy.self)
            blockGetHash = try symbol("btck_block_get_hash", as: Create1.self)
            blockHashCreate = try symbol("btck_block_hash_create", as: HashCreate.self)
            blockHashToBytes = try symbol("btck_block_hash_to_bytes", as: HashToBytes.self)
            blockHashDestroy = try symbol("btck_block_hash_destroy", as: Destroy.self)
            chainGetHeight = try symbol("btck_chain_get_height", as: GetInt32.self)
            chainGetByHeight = try symbol("btck_chain_get_by_height", as: ChainGetByHeight.self)
            entryGetBlockHash = try symbol("btck_block_tree_entry_get_block_hash", as: Create1.self)
            validationStateMode = try symbol("btck_block_validation_state_get_validation_mode", as: GetMode.self)
            validationStateResult = try symbol("btck_block_validation_state_get_block_validation_result",
                                               as: GetResult.self)
            loggingConnectionCreate = try symbol("btck_logging_connection_create", as: CreateLoggingConnection.self)
        } catch {
            handle.close()
            throw error
        }
    }

    /// The 32 bytes of a kernel block hash (internal byte order, as our `BlockHash` keeps them).
    func bytes(ofHash hash: OpaquePointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        out.withUnsafeMutableBufferPointer { blockHashToBytes(hash, $0.baseAddress) }
        return out
    }
}
