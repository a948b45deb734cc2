/* json.h: JSON files through cJSON (Debian's libcjson), the one JSON library of the project:
 * config.json, completion.json and safetensors headers are read and written with it. What is
 * ours: reading a whole file with a one-line error naming it, writing atomically, numbers
 * written so that they read back exactly (cJSON prints with 15 digits and accepts its reading
 * within an epsilon: 2^53 would come back as 9007199254740990), and an exact comparison
 * (numbers equal as doubles; cJSON_Compare allows an epsilon). */
#ifndef FLCE_JSON_H
#define FLCE_JSON_H

#include <cjson/cJSON.h>

#include "base.h"

/* Parse the file at path (at most max_bytes; one JSON value, then only white space). NULL and
 * a one-line error naming the file (FLCE_ERR_IO when it cannot be read, FLCE_ERR_FORMAT when it
 * is not JSON) in *st and e. Free with cJSON_Delete. */
cJSON *flce_json_read(const char *path, size_t max_bytes, flce_status *st, flce_err *e);
/* A number item that prints as the shortest text reading back as exactly v (%.15g, %.16g or
 * %.17g; a raw item, so that cJSON prints it as it is). NULL when out of memory or v is not
 * finite. Use it (and flce_json_add_number) for every number written. */
cJSON *flce_json_number(double v);
cJSON *flce_json_add_number(cJSON *obj, const char *key, double v);
cJSON *flce_json_numbers(const double *v, int n); /* an array of them */
/* Every number of the tree (as parsed) in that exact form, for printing it as a key. */
void flce_json_exact(cJSON *tree);
/* The members of every object in the tree ordered by name: two values with the same members
 * written in another order (config.json of builds of other dates) then print the same. */
void flce_json_sort(cJSON *tree);
/* Print v (formatted) and write it atomically to path, with a final newline. */
flce_status flce_json_write(const char *path, const cJSON *v, flce_err *e);
/* 1 when a and b are the same JSON value: same types, strings equal, numbers equal exactly,
 * arrays element by element, objects with the same members (in any order: config.json of
 * builds of other dates writes them in another). */
int flce_json_equal(const cJSON *a, const cJSON *b);
/* A member's number (NAN when absent or not a number) and string (NULL when absent or not a
 * string). */
double flce_json_num(const cJSON *obj, const char *key);
const char *flce_json_str(const cJSON *obj, const char *key);

#endif
