/* attacks.h: strategic clients (fl/attacks.c; docs/attacks.md). The engine calls these; no method
 * does. */
#ifndef FLCE_ATTACKS_H
#define FLCE_ATTACKS_H

#include "engine.h"

struct engine;

/* "KIND:CLIENT[:STRENGTH]" into a (the client's range is checked by flce_attacks_check, which
 * knows the clients): 0, or -1 with why (what is wrong, without the flag's name). */
int flce_attack_parse(const char *spec, flce_attack *a, char *why, size_t cap);
const char *flce_attack_name(int kind);
const char *flce_attack_kinds(void);
/* "forge-prototypes:0:2" */
void flce_attack_words(const flce_attack *a, char *o, size_t cap);
/* The attacks of c against its clients: each client in range and named once, none also named by
 * --duplicate (FLCE_ERR_ARG). */
flce_status flce_attacks_check(const flce_run_cfg *c, flce_err *e);
/* 1 where a method of these flags (FLCE_M_*) can feel the kind: forge-prototypes only a method that
 * takes prototypes, inflate-count only one that reads counts; the rest every method. */
int flce_attack_felt(int kind, unsigned method_flags);
/* The attack on client k, or NULL. */
const flce_attack *flce_attack_on(const flce_run_cfg *c, int client);

/* The engine's calls. On the partition, before the clients' data are laid out: replicate,
 * shuffle-labels, flip-labels. */
flce_status flce_attacks_partition(flce_partition *p, const flce_run_cfg *c, flce_err *e);
/* On the laid-out data: random-data's pixels, inflate-count's reported count (E->sizes; the
 * counts held kept in E->data_sizes). */
flce_status flce_attacks_data(struct engine *E, flce_err *e);
/* Client k's local training: 1 where it is a free-rider (no training; the model it received,
 * plus its noise, is what it uploads and computes its prototypes with), else 0; -1 when out of
 * memory. */
int flce_attack_free_ride(struct engine *E, int k);
/* After slot's client computed its upload: forge-prototypes scales its prototypes. */
void flce_attack_upload(struct engine *E, int slot);

#endif
