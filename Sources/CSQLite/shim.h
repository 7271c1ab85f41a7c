// SQLite 3: the node's store (WAL mode, one short transaction per write).
#include <sqlite3.h>
