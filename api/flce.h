/* flce.h: libflce, the C API of FLCE's evaluation (issue 34): the equations, the completion and
 * the trace reader and writer of this harness, without training or backends, for programs in
 * other languages (python/flce wraps it with ctypes). The results are the bits `flce eval`
 * gives: it calls the same functions.
 *
 * Every function returns 0 on success, 2 when an argument is wrong (a shape, a word, a file that
 * does not fit: what `flce eval` calls a usage error) and 1 when the work fails (a damaged trace,
 * out of memory); flce_last_error() then says what, in one line naming the file or argument.
 * Arrays are C-contiguous, in the layouts of docs/formats.md. */
#ifndef FLCE_API_H
#define FLCE_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLCE_API_VERSION 3 /* 2: flce_api_digest; 3: flce_api_evaluate takes the sizes of its output arrays */
#if defined(FLCE_API_BUILD)
#define FLCE_API __attribute__((visibility("default")))
#else
#define FLCE_API
#endif

FLCE_API int flce_api_version(void);
/* The last error of this thread, one line ("" when none). */
FLCE_API const char *flce_last_error(void);

/* eq:method.z: the prototype of each class, the mean of the features z [n][d] of the samples of
 * that class, over the samples the model classifies right (reading "correct": pred[i] ==
 * labels[i]; the paper's text) or over all of them ("all": pred ignored, may be NULL; its
 * equation). proto [C][d] (NaN where a class has none), count [C]: how many samples made it. */
FLCE_API int flce_api_prototypes(const float *z, const int32_t *labels, const int32_t *pred, int n, int d, int C, const char *reading,
                        float *proto, int32_t *count);

/* Write a trace folder that `flce eval` reads (docs/formats.md): prototypes.npy float32
 * [T][n][C][d] (NaN where none: every class of a client not selected, the classes a selected
 * client has no prototype of), selected.npy uint8 [T][n], data_sizes.npy int64 [n],
 * class_weights.npy [C] where given (NULL: none), prototypes_alt.npy where given (the other
 * reading's prototypes, NULL: none), and completion.json: the seed of the completion's start,
 * the prototypes' reading ("correct" or "all"), and the completion's settings (NULL: the
 * defaults). Checked before anything is written. dir: absent, empty, or a trace written here
 * (replaced whole: its files this trace lacks are removed); a run's folder, a run's trace folder
 * (Q.npy, X_completed.npy; or, before the run wrote them, a folder above holding the run's
 * config.json and device.txt or state.bin) or a folder with other files is refused (2).
 * One writer at a time: dir is flock()ed exclusively while it is written, the lock `flce run`
 * takes on its --out folder, and the folder above shared (a flce run writing it holds that one);
 * another writer's lock is refused at once (2: "another process is writing this folder now"),
 * never waited for. The files are written into a new folder beside dir (.flce-tmp-...), which
 * is swapped in whole (renameat2 RENAME_EXCHANGE) and the old one removed: a reader sees the old
 * trace or the new, and a failure leaves dir as it was. Where the folder cannot be swapped (a
 * file system without the exchange, a folder above that cannot be written) the files are
 * written under temporary names inside dir and renamed one at a time, under the lock. */
FLCE_API int flce_api_trace_write(const char *dir, int T, int n, int C, int d, const float *prototypes, const uint8_t *selected,
                         const int64_t *sizes, const double *class_weights, const float *prototypes_alt, const char *reading,
                         uint64_t seed, const char *rank, const char *mu, const char *missing);

/* The run digest of len bytes at data (xxh3-64, as digests.txt writes it: 16 hex digits and a
 * NUL into out [17]): of the n doubles of a run's contributions, its "contributions" line. */
FLCE_API void flce_api_digest(const void *data, size_t len, char *out);

/* The shape of the trace in dir: T, n, C, d into shape [4] (d = 0: a run's Q.npy without
 * prototypes). A trace swapped in by a writer while it was read is read again. */
FLCE_API int flce_api_trace_shape(const char *dir, int64_t *shape);

/* Evaluate the trace in dir as `flce eval DIR` with these flags (NULL or -1: not given, so the
 * trace's recorded setting or the default): rank, mu, solver, completion, proto_samples, missing,
 * ablate ("M V Q CMC", any of them), round_weights, class_weights (files), rounds, max_iter,
 * seed (has_seed 0: the trace's), tol (0: the default), threads (0: one per CPU). Outputs
 * (any may be NULL): contributions [n], Q and X [T][n][C] (T: the rounds evaluated), the rank
 * and mu used per class [C], the held-out error of the choice per class [C] (NaN unless auto),
 * and the settings used as JSON text into settings (cap bytes). T, n, C: the sizes the output
 * arrays were made for (from flce_api_trace_shape, T cut to rounds); a trace of another shape
 * (replaced since its shape was read) is refused, 2 with "trace changed: ...", and nothing is
 * copied or written. A trace swapped in while it was read is read again. out_dir: also write
 * flce eval's four files there (NULL: none). */
FLCE_API int flce_api_evaluate(const char *dir, const char *rank, const char *mu, const char *solver, const char *completion,
                      const char *proto_samples, const char *missing, const char *ablate, const char *round_weights,
                      const char *class_weights, int rounds, int max_iter, int has_seed, uint64_t seed, double tol, int threads,
                      const char *out_dir, int T, int n, int C, double *contributions, double *Q, double *X, int32_t *rank_used,
                      double *mu_used, double *cv_error, char *settings, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
