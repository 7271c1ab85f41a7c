// The one part of Bitcoin Core's kernel API (bitcoinkernel.h, v31) that Swift cannot
// express on its own: a callbacks struct passed BY VALUE. Declaring it here lets the C
// compiler lower the call for whatever processor we run on. libbitcoinkernel.so itself is
// opened with dlopen at run time (its path comes from PEERNODE_KERNEL_LIB), so this module
// declares types only and links nothing. Prefixed so it cannot clash with the real header.
#ifndef PEERNODE_CBITCOINKERNEL_SHIM_H
#define PEERNODE_CBITCOINKERNEL_SHIM_H

typedef void (*peernode_btck_destroy_callback)(void *user_data);
// block_checked gets (user_data, btck_Block* owned by the callee, const btck_BlockValidationState*);
// the other three get (user_data, btck_Block*, const btck_BlockTreeEntry*).
typedef void (*peernode_btck_block_callback)(void *user_data, void *block, const void *state_or_entry);

// Field for field the layout of btck_ValidationInterfaceCallbacks.
typedef struct {
    void *user_data;
    peernode_btck_destroy_callback user_data_destroy;
    peernode_btck_block_callback block_checked;
    peernode_btck_block_callback pow_valid_block;
    peernode_btck_block_callback block_connected;
    peernode_btck_block_callback block_disconnected;
} peernode_btck_validation_interface_callbacks;

// btck_context_options_set_validation_interface(btck_ContextOptions*, btck_ValidationInterfaceCallbacks)
typedef void (*peernode_btck_set_validation_interface)(void *context_options,
                                                       peernode_btck_validation_interface_callbacks callbacks);

#endif
