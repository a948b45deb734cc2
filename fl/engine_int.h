/* engine_int.h: what the engine's files (engine.c, run_files.c, state_file.c, processes.c)
 * share among themselves; not for methods (method.h) or programs (engine.h). */
#ifndef FLCE_ENGINE_INT_H
#define FLCE_ENGINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "method.h"
#include "json.h"
#include "trace_io.h"

/* The fields of state.bin after its 16-byte header, in file order (the one list that writing
 * and reading both follow); returns how many. */
typedef struct {
    void *p;
    size_t bytes;
} state_field;

/* Every rank's status agreed: when any rank failed, every rank fails with the message of the
 * lowest failing rank, prefixed with its number (rank 0's own message as it is). */
flce_status eng_agree(engine *E, flce_status st, flce_err *e);

/* Each slot of the round to a rank, balanced by the clients' samples: the largest first, each
 * to the least loaded rank (ties: the lower slot, the lower rank). */
void eng_assign_slots(engine *E);

int eng_bn_layers(flce_model *m, flce_bn_l **out);

/* The run folder, checked (nothing written): an existing run is refused unless --force (start
 * over) or --resume (continue). make_dir then makes it (under --force, emptied of the old run). */
flce_status eng_check_dir(engine *E, flce_err *e);

/* The clients of the round: each rank trains its slots, then every slot's bundle goes from its
 * rank to all (in slot order), and the BatchNorm batch counters of the training model add up
 * over the ranks as in one process. */
flce_status eng_client_phase(engine *E, flce_err *e);

/* What slot i's client sends (its model, losses and reports, prototypes, per-client state): packed
 * into b (pack = 1) or unpacked from it into E; the bytes (b NULL: only counted). */
size_t eng_slot_bundle(engine *E, int i, unsigned char *b, int pack);

/* The memo (fl/memo.c): cfg->memo where this run may use it (one process; emptied when it held
 * another configuration's work), else NULL, for E->memo. */
flce_memo *eng_memo_attach(engine *E);
/* 1 when slot's update came from E->memo (unpacked into E, the BatchNorm counters' increments
 * into bn [nbn]); 0: to be trained, then kept with eng_memo_keep_update. */
int eng_memo_update(engine *E, int slot, int64_t *bn, int nbn);
void eng_memo_keep_update(engine *E, int slot, const int64_t *bn, int nbn);
/* The test evaluation of E->global (already in E->m) after round E->t: from E->memo where it holds
 * one, else run (spread over the processes) and kept. */
flce_status eng_memo_evaluate(engine *E, double *acc, double *f1, double *loss, flce_err *e);

/* Slot i's client: E local epochs over its data in a seeded order (stream batch, round t,
 * client k), the method's hooks around and inside, the upload into E->states[i]. */
flce_status eng_client_update(engine *E, int slot, flce_err *e);

/* config.json: every setting that decides the results (not the backend: all backends give the
 * same bits), in this order. NULL when out of memory. */
cJSON *eng_config_json(engine *E);

/* With spread (several processes, no loss asked for): batch b on rank b mod P, the counts
 * summed over the ranks; accuracy and F1 come from integer counts, so the same bits. */
flce_status eng_evaluate(engine *E, flce_model *model, const float *x, const int32_t *y, int n, double *acc, double *f1,
                            double *loss, int spread, flce_err *e);


/* The first setting in which two settings texts (settings_text) differ, as "its lr is 0.02, this
 * run's 0.01", into out. */
void flce_settings_diff(const char *theirs, const char *mine, char *out, size_t cap);

flce_status eng_load_state(engine *E, int *done, flce_err *e);

flce_status eng_make_dir(engine *E, flce_err *e);

/* The run folder's files before the first round: config.json (or, with --resume, the check
 * that it holds these settings and the state to continue from: the rounds done into *done),
 * device.txt, clients.csv, the trace of a method that uploads prototypes, the method's own
 * (open), and the state before the first round. */
flce_status eng_open_run_files(engine *E, int *done_out, flce_err *e);

/* Every rank runs the same program, contract and data: rank 0's fingerprint against each
 * rank's own; a rank that differs is named. */
flce_status eng_same_everywhere(engine *E, flce_err *e);

flce_status eng_save_state(engine *E, int done, flce_err *e);

/* The settings a run's results depend on, as text (malloc'd; NULL when out of memory): config.json
 * cj compact, a newline, the digest of the partition drawn. What a state.bin belongs to and what
 * every rank must share. */
char *eng_settings_text(engine *E, const cJSON *cj);

/* --resume spread over processes: rank 0 read the state; every rank gets it. */
flce_status eng_share_state(engine *E, int *done, flce_err *e);

int eng_state_fields(engine *E, int done, state_field *f);

size_t eng_state_size(engine *E, int done);

flce_status eng_write_round(engine *E, uint8_t *selrow, flce_err *e);

flce_status eng_write_text(engine *E, const char *name, const char *text, flce_err *e);

#endif
