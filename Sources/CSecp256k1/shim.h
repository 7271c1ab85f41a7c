// libsecp256k1 with the modules peernode uses: ECDSA (base), public-key recovery,
// x-only keys and keypairs (extrakeys), and BIP340 Schnorr signatures.
#include <secp256k1.h>
#include <secp256k1_recovery.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>
