/* err.c: status codes, the error context, checked allocation, atomic file writes and paths. */
#define _DEFAULT_SOURCE /* realpath */
#include "base.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

char *flce_one_line(char *s) {
    for (unsigned char *p = (unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f) *p = '?';
    return s;
}

flce_status flce_fail(flce_err *e, flce_status s, const char *fmt, ...) {
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        flce_one_line(e->msg); /* a value echoed from a flag or a file name stays on the line */
    }
    return s;
}

const char *flce_status_name(flce_status s) {
    switch (s) {
    case FLCE_OK: return "ok";
    case FLCE_ERR_IO: return "i/o error";
    case FLCE_ERR_FORMAT: return "format error";
    case FLCE_ERR_ARG: return "invalid argument";
    case FLCE_ERR_NOMEM: return "out of memory";
    case FLCE_ERR_NUMERIC: return "numeric error";
    }
    return "unknown status";
}

void *flce_calloc(size_t count, size_t size) {
    if (count == 0 || size == 0) return calloc(1, 1);
    if (count > SIZE_MAX / size) return NULL;
    return calloc(count, size);
}

void *flce_huge(void *p, size_t n) {
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (p && n >= 2 * huge) {
        int saved = errno;
        uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + n) & ~(huge - 1);
        if (b > a) (void)madvise((void *)a, b - a, MADV_HUGEPAGE); /* refused (no huge pages): nothing changes */
        errno = saved;
    }
#else
    (void)n;
#endif
    return p;
}

flce_status flce_write_file_atomic(const char *path, const void *data, size_t len, flce_err *e) {
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return flce_fail(e, FLCE_ERR_ARG, "%s: path too long", path);
    struct stat sb; /* only a regular file is ever replaced: never a device, a FIFO, a folder or a link */
    if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return flce_fail(e, FLCE_ERR_IO, "%s: not a regular file (%s): not replaced", path,
                         S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device" : S_ISFIFO(sb.st_mode) ? "a FIFO"
                         : S_ISDIR(sb.st_mode) ? "a folder" : S_ISLNK(sb.st_mode) ? "a symbolic link" : "a special file");
    FILE *f = fopen(tmp, "wb");
    if (!f) return flce_fail(e, FLCE_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    int ok = fwrite(data, 1, len, f) == len, er = ok ? 0 : errno;
    if (fflush(f) != 0 && ok) ok = 0, er = errno;
    if (fclose(f) != 0 && ok) ok = 0, er = errno;
    if (!ok) {
        remove(tmp); /* nothing half-written stays */
        return flce_fail(e, FLCE_ERR_IO, "%s: write failed: %s", path, strerror(er ? er : EIO));
    }
    if (rename(tmp, path) != 0) {
        int rer = errno;
        remove(tmp);
        return flce_fail(e, FLCE_ERR_IO, "%s: cannot rename into place: %s", path, strerror(rer));
    }
    return FLCE_OK;
}

FILE *flce_fopen_regular(const char *path, char *why, size_t cap) {
    if (cap) why[0] = '\0';
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO must not block the open */
    if (fd < 0) {
        int er = errno;
        if (cap) snprintf(why, cap, "%s", strerror(er));
        errno = er;
        return NULL;
    }
    struct stat sb;
    const char *what = NULL;
    if (fstat(fd, &sb) != 0) what = "cannot be examined";
    else if (S_ISDIR(sb.st_mode)) what = "a folder, not a file";
    else if (S_ISFIFO(sb.st_mode)) what = "a FIFO, not a file";
    else if (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode)) what = "a device, not a file";
    else if (!S_ISREG(sb.st_mode)) what = "not a regular file";
    if (what) {
        if (cap) snprintf(why, cap, "%s", what);
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    fcntl(fd, F_SETFL, 0);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        if (cap) snprintf(why, cap, "%s", strerror(errno));
        close(fd);
    }
    return f;
}

char *flce_path_resolved(const char *path) {
    size_t n = strlen(path);
    char *head = malloc(n + 3);
    if (!head) return NULL;
    snprintf(head, n + 3, "%s", path[0] ? path : ".");
    for (;;) {
        char *r = realpath(head, NULL);
        if (r) {
            const char *rest = path + strlen(head);
            size_t rl = strlen(r) + strlen(rest) + 2;
            char *full = malloc(rl);
            if (full) snprintf(full, rl, "%s%s%s", r, *rest && *rest != '/' ? "/" : "", rest);
            free(r), free(head);
            return full;
        }
        char *slash = strrchr(head, '/');
        if (!slash) { /* a relative name with nothing left: the working folder */
            char *cwd = realpath(".", NULL);
            size_t rl = (cwd ? strlen(cwd) : 0) + n + 2;
            char *full = cwd ? malloc(rl) : NULL;
            if (full) snprintf(full, rl, "%s/%s", cwd, path);
            free(cwd), free(head);
            return full;
        }
        if (!strcmp(head, "/")) break; /* not even the root resolves */
        if (slash == head) slash[1] = '\0'; /* "/" */
        else *slash = '\0';
    }
    free(head);
    return NULL;
}

int flce_path_within(const char *path, const char *dir) {
    char *p = flce_path_resolved(path), *d = realpath(dir, NULL);
    size_t l = d ? strlen(d) : 0;
    int in = p && d && !strncmp(p, d, l) && (p[l] == '\0' || p[l] == '/' || (l == 1 && d[0] == '/'));
    free(p), free(d);
    return in;
}

const char *flce_number(const char *s, double *x) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    int range = errno == ERANGE;
    if (!*s || end == s || *end || strpbrk(s, "xX") || isnan(v) || isinf(v)) return "not a finite number"; /* hex too: decimal only */
    if (isspace((unsigned char)*s)) return "not a finite number (a space before it)"; /* strtod skips it; a space after is refused above */
    if (range && fabs(v) > 1) return "not a finite number (beyond the largest double, 1.8e308)";
    if (range || (v != 0 && fabs(v) < DBL_MIN)) return "too close to 0 (below 2.2e-308 in magnitude: not a normal double)";
    *x = v;
    return NULL;
}

int flce_path_writable(const char *path, char *where, size_t cap) {
    char p[4096];
    struct stat sb;
    snprintf(p, sizeof p, "%s", path[0] ? path : ".");
    while (stat(p, &sb) != 0) { /* the nearest folder above that exists: where it would be made */
        char *sl = strrchr(p, '/');
        if (!sl) snprintf(p, sizeof p, ".");
        else if (sl == p) p[1] = '\0';
        else *sl = '\0';
    }
    snprintf(where, cap, "%s", p);
    if (!S_ISDIR(sb.st_mode)) return errno = ENOTDIR, -1;
    return access(p, W_OK | X_OK) == 0 ? 0 : -1;
}

int flce_mkdirs(const char *path) {
    char p[4096];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) return -1;
    for (char *c = p + 1; *c; c++) {
        if (*c != '/') continue;
        *c = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
        *c = '/';
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode) ? 0 : -1;
}

void flce_catf(char *buf, size_t cap, size_t *len, const char *fmt, ...) {
    if (!cap || *len >= cap - 1) {
        if (cap) *len = cap - 1, buf[cap - 1] = '\0';
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    *len = (size_t)n < cap - *len ? *len + (size_t)n : cap - 1; /* cut off: the end of the buffer */
}

void flce_sbuf_printf(flce_sbuf *b, const char *fmt, ...) {
    if (b->oom) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + (size_t)n + 1) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s, b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void flce_sbuf_free(flce_sbuf *b) {
    free(b->s);
    *b = (flce_sbuf){0};
}
