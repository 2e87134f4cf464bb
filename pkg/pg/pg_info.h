/* Blocking look-ups made before the load starts: server settings, dataset size vs shared_buffers,
 * pgbench init detection, primary/standby role and the replay catch-up wait.
 * All take an open connection (borrowed) and return 0 or a negative errno; on -EIO the server's
 * message (one line) is in the caller's msg buffer when one is given. */
#ifndef PGBO_PG_INFO_H
#define PGBO_PG_INFO_H

#include <cjson/cJSON.h>
#include <libpq-fe.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PG_SETTINGS_MAX 32

struct pg_setting {
    char name[48];
    char value[80]; /* current_setting(): human form, "128MB" */
};

/* Settings that decide benchmark results, in this order. */
extern const char *const pg_result_settings[];

struct pg_server_info {
    char version[32]; /* server_version, "15.18 (Debian 15.18-0+deb12u1)" cut at the first space */
    int version_num;  /* server_version_num, 150018 */
    bool in_recovery; /* pg_is_in_recovery(): a standby */
    int64_t shared_buffers_bytes;
    int64_t database_bytes; /* pg_database_size(current_database()) */
    char database[64];
    int nsettings;
    struct pg_setting settings[PG_SETTINGS_MAX];
};

int pg_server_info_get(PGconn *conn, struct pg_server_info *out, char *msg, size_t msglen);

/* {"version":..,"versionNum":..,"inRecovery":..,"database":..,"databaseBytes":..,
 *  "sharedBuffersBytes":.., "shared_buffers":"128MB", "fsync":"on", ...}: the settings of
 *  pg_result_settings as current_setting() prints them, beside the other keys. */
cJSON *pg_server_info_to_json(const struct pg_server_info *s);

/* pgbench tables present with exactly this scale (and partitioning, when partitions > 0):
 * branches = scale, tellers = 10 * scale, accounts has its primary key and aid spans
 * 1..100000 * scale (index look-ups only). *initialized tells; reason says why either way. */
int pg_pgbench_initialized(PGconn *conn, int scale, int partitions, bool *initialized, char *reason,
                           size_t n);

/* The database's size on disk, every file of it (pg_database_size, which walks its directories
 * and takes no lock, so it counts the files of a transaction still loading), and the server's
 * block size: what the server-side generation's progress is estimated from. */
int pg_database_bytes(PGconn *conn, double *bytes, int *block_size, char *msg, size_t msglen);

/* Replay catch-up before a run.
 * On a standby: target = max(receive lsn, the primary's WAL end reported to the WAL receiver) taken
 * at the start; caught up when replay lsn >= target.
 * On a primary: target = pg_current_wal_lsn() taken at the start; caught up when every
 * pg_stat_replication row in state streaming or catchup has replay_lsn >= target (base backups'
 * WAL senders are ignored; trivially true with no standbys). */
struct pg_replica_wait {
    bool standby;
    bool caught_up;
    double waited_s;
    int standbys; /* primary: streaming/catchup rows in pg_stat_replication */
    char target_lsn[32];
    char message[256];
};

/* {"role":"standby"|"primary","caughtUp":..,"waitedSeconds":..,"targetLsn":..,"standbys":..,
 *  "message":..}. */
cJSON *pg_replica_wait_to_json(const struct pg_replica_wait *w);

/* cancel (may be NULL): when set, the wait stops early (caught_up false, returns -ECANCELED). */
int pg_replica_catchup(PGconn *conn, double timeout_s, const volatile sig_atomic_t *cancel,
                       struct pg_replica_wait *out, char *msg, size_t msglen);

/* "16/B374D848" -> 0x16B374D848. Returns 0 or -EINVAL. Pure. */
int pg_lsn_parse(const char *s, uint64_t *out);

#endif
