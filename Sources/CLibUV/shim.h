// libuv: the one event loop per process (sockets, timers, signals, async wake-ups).
#include <uv.h>
