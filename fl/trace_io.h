/* trace_io.h: reading what users hand in beside a trace: weight lists (round weights a_t,
 * class weights b_c) and a whole trace folder (docs/formats.md), each checked completely
 * before anything is computed from it; errors name the file. */
#ifndef FLCE_TRACE_IO_H
#define FLCE_TRACE_IO_H

#include "flce_eq.h"
#include "json.h"
#include "npy.h"

/* A weight vector of exactly len finite non-negative numbers with a positive sum, from a .npy
 * file (float64 [len]) or a text list (numbers separated by commas, spaces or newlines).
 * *out is malloc'd. FLCE_ERR_IO when the file cannot be opened, FLCE_ERR_FORMAT otherwise. */
flce_status flce_read_weights(const char *path, int len, double **out, flce_err *e);

/* A trace folder, read and checked: prototypes.npy float32 [T, n, C, d] (or, where it is
 * absent, a run's Q.npy float64 [T, n, C]: the completion and totals redone from the momentum
 * recorded; selected.npy may then be absent too, the selection read off Q's NaN rows), selected.npy uint8
 * [T, n] of 0/1, data_sizes.npy int64 [n] of positive sizes, and the optional
 * round_weights.npy / class_weights.npy (or the files given instead), and initial_prototypes.npy float64
 * [C, d] where present (round 1's previous global prototypes, rows of NaN for none). Limits: T <= 1,000,000,
 * n <= 100,000, C <= 10,000, d <= 65,536, each at least 1. On failure *weights_bad says whether
 * a weight file was at fault (a usage error for the command line). */
typedef struct {
    flce_trace tr;   /* points into the buffers below */
    flce_npy prototypes, selected, data_sizes, q; /* q: Q.npy, read where prototypes.npy is absent */
    flce_npy initial; /* initial_prototypes.npy float64 [C, d], where present (a run with --initial-prototypes
                       * initial-model): the trace's initial_g */
    uint8_t *sel_from_q;                          /* the selection from Q's NaN rows, where selected.npy is absent too */
    double *sizes;   /* [n] data sizes as doubles */
    double *round_weights, *class_weights; /* NULL: not given */
} flce_trace_files;

flce_status flce_trace_load(const char *dir, const char *round_weights_path, const char *class_weights_path,
                            flce_trace_files *tf, int *weights_bad, flce_err *e);
/* The same with another file in place of prototypes.npy (a run's prototypes_alt.npy: the other
 * reading of which samples make a prototype); NULL: prototypes.npy. */
flce_status flce_trace_load_as(const char *dir, const char *proto_file, const char *round_weights_path, const char *class_weights_path,
                               flce_trace_files *tf, int *weights_bad, flce_err *e);
void flce_trace_files_free(flce_trace_files *tf);

/* Completion settings from their command-line spellings (any may be NULL: unchanged):
 * rank "auto" or a whole number >= 1, mu "auto" or a number > 0, solver "als" or "gd",
 * completion "masked" or "literal". FLCE_ERR_ARG naming the flag otherwise. */
flce_status flce_completion_parse(const char *rank, const char *mu, const char *solver, const char *completion,
                                  flce_completion_cfg *cc, flce_err *e);
/* The settings as members of a JSON object: "completion", "solver", "rank", "mu", "folds", "version"
 * (0 when out of memory). */
int flce_completion_settings_add(cJSON *obj, const flce_completion_cfg *cc);
/* A completion record: {"seed", "ablate", the settings, and per class the rank and mu used and,
 * with auto, the held-out error of the choice and of every candidate}, into path (atomic). */
flce_status flce_completion_record(const char *path, const flce_completion_cfg *cc, const char *ablate, int C,
                                   const flce_eval_result *res, const char *trace_digest, flce_err *e);
/* A trace folder's digest as digests.txt's `trace` line gives it: xxh3-64 of prototypes.npy xor
 * 0x9E3779B97F4A7C15 times xxh3-64 of selected.npy (a file that cannot be read counts 0). flce
 * eval records it in completion_eval.json (`trace_digest`, with trace_digest above), so that an
 * evaluation names the trace it was made of. */
uint64_t flce_trace_digest(const char *trace_dir);

/* What a completion.json says (flce eval takes it where its command line does not): the seed,
 * the ablations and the settings, as text for flce_completion_parse ("" where absent). */
typedef struct {
    int has_seed;
    uint64_t seed;
    char ablate[32];
    char completion[40], solver[40], rank[40], mu[40], missing[40], prototypes[40]; /* the readings: "" where absent */
    char velocity[40], absent_class[40]; /* the round's rules ("squared" | "distance", "keep" | "forget"): "" where absent (the text's) */
    char initial_prototypes[40];         /* "initial-model" where round 1's reference came from the initial model; "" where absent */
    int version; /* the completion's version (1 where the record has none: written before versions) */
    double proto_clip; /* the guard's multiple (docs/attacks.md): 0 where absent (off, the text's) */
} flce_completion_file;
flce_status flce_completion_read(const char *path, flce_completion_file *cf, flce_err *e);

#endif
