#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bitcoin Core's libbitcoinkernel, opened with `dlopen` and reduced to the typed entry points
/// script verification needs. It is loaded at run time rather than linked so that the package
/// builds without it and only the code that verifies scripts depends on the download.
///
/// Every field is set once in `load(path:)` and never changes; the library is never closed, so
/// the function pointers stay valid for the life of the process and the value is `Sendable`.
struct KernelLibrary: Sendable {
    // Handles are opaque C structs (`btck_ScriptPubkey*`, ...), so OpaquePointer.
    typealias CreateFromBytes = @convention(c) (UnsafeRawPointer?, Int) -> OpaquePointer?
    typealias Destroy = @convention(c) (OpaquePointer?) -> Void
    typealias CreateOutput = @convention(c) (OpaquePointer?, Int64) -> OpaquePointer?
    typealias CreatePrecomputed = @convention(c) (OpaquePointer?, UnsafePointer<OpaquePointer?>?, Int) -> OpaquePointer?
    /// (script_pubkey, amount, tx, precomputed, input_index, flags, status*) -> 1 valid / 0 not.
    typealias Verify = @convention(c) (
        OpaquePointer?, Int64, OpaquePointer?, OpaquePointer?, UInt32, UInt32, UnsafeMutablePointer<UInt8>?
    ) -> Int32

    /// What a user has to do when the library is missing: one message, used everywhere.
    static let setupHint = "run `make setup` (scripts/setup.sh), which fetches lnurlcash-kernel 0.2.3 from PyPI "
        + "and unpacks libbitcoinkernel.so into .build/kernel/, or set PEERNODE_KERNEL_LIB"

    let path: String
    let scriptPubkeyCreate: CreateFromBytes
    let scriptPubkeyDestroy: Destroy
    let transactionCreate: CreateFromBytes
    let transactionDestroy: Destroy
    let transactionOutputCreate: CreateOutput
    let transactionOutputDestroy: Destroy
    let precomputedTransactionDataCreate: CreatePrecomputed
    let precomputedTransactionDataDestroy: Destroy
    let scriptPubkeyVerify: Verify

    /// Libraries already opened, by path: each is opened and resolved once per process.
    private static let cache = KernelLibraryCache<KernelLibrary>()

    static func load(path: String) throws -> KernelLibrary {
        try cache.load(path: path) { try KernelLibrary(opening: $0) }
    }

    private init(opening path: String) throws {
        let handle = try KernelHandle.open(path)
        func symbol<F>(_ name: String, as type: F.Type) throws -> F { try handle.symbol(name, as: type) }
        do {
            self.path = path
            scriptPubkeyCreate = try symbol("btck_script_pubkey_create", as: CreateFromBytes.self)
            scriptPubkeyDestroy = try symbol("btck_script_pubkey_destroy", as: Destroy.self)
            transactionCreate = try symbol("btck_transaction_create", as: CreateFromBytes.self)
            transactionDestroy = try symbol("btck_transaction_destroy", as: Destroy.self)
            transactionOutputCreate = try symbol("btck_transaction_output_create", as: CreateOutput.self)
            transactionOutputDestroy = try symbol("btck_transaction_output_destroy", as: Destroy.self)
            precomputedTransactionDataCreate = try symbol(
                "btck_precomputed_transaction_data_create", as: CreatePrecomputed.self)
            precomputedTransactionDataDestroy = try symbol("btck_precomputed_transaction_data_destroy", as: Destroy.self)
            scriptPubkeyVerify = try symbol("btck_script_pubkey_verify", as: Verify.self)
        } catch {
            // Nothing else holds the handle of a library we reject, so close it before reporting.
            handle.close()
            throw error
        }
        // On success the handle is deliberately never closed: the function pointers above live
        // as long as the process, which is what makes this value safe to share.
    }
}
