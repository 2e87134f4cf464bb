/* pkg/pg: libpq helpers for the runner. Include this or the individual headers. */
#ifndef PGBO_PG_PG_H
#define PGBO_PG_PG_H

#include "pkg/pg/pg_conn.h"
#include "pkg/pg/pg_diag.h"
#include "pkg/pg/pg_info.h"

#endif
