// libsodium: SHA-256, HMAC-SHA512, BLAKE2b, ChaCha20-Poly1305, X25519 and ed25519.
#include <sodium.h>
