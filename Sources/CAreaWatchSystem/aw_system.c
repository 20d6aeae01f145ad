#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <errno.h>
#include <unistd.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include "aw_system.h"

/// renameat2 with `flags`; ENOSYS where the C library has no renameat2.
static int rename_with_flags(const char *from, const char *to, unsigned int flags) {
#ifdef RENAME_NOREPLACE
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, flags);
#else
    (void)from; (void)to; (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#endif

int aw_exchange_paths(const char *a, const char *b) {
    return rename_with_flags(a, b, RENAME_EXCHANGE);
}

int aw_rename_noreplace(const char *from, const char *to) {
    return rename_with_flags(from, to, RENAME_NOREPLACE);
}

int aw_sync_filesystem(int fd) {
    return syncfs(fd);
}

int aw_open_unnamed_file(const char *folder) {
#ifdef O_TMPFILE
    int fd = open(folder, O_RDWR | O_CLOEXEC | O_TMPFILE, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
#endif
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/.areawatch-spool-XXXXXX", folder);
    if (n < 0 || (size_t)n >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int named = mkostemp(path, O_CLOEXEC);
    if (named >= 0) unlink(path);
    return named;
}

int aw_start_writeback(int fd, long long offset, long long length) {
    return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}

void aw_malloc_reuse_freed_memory(void) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
}
