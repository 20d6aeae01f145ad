#ifndef AW_SYSTEM_H
#define AW_SYSTEM_H

/// Atomically swaps two existing paths (Linux renameat2 RENAME_EXCHANGE).
/// Returns 0 on success, -1 with errno set otherwise.
int aw_exchange_paths(const char *a, const char *b);

/// Renames `from` to `to` unless `to` exists (Linux renameat2 RENAME_NOREPLACE): never replaces
/// anything, not even an empty folder. Returns 0 on success, -1 with errno set otherwise.
int aw_rename_noreplace(const char *from, const char *to);

/// Flushes the whole filesystem holding `fd` (Linux syncfs). Returns 0 or -1 with errno.
int aw_sync_filesystem(int fd);

/// Starts writing a byte range of `fd` to disk without waiting for it (Linux sync_file_range
/// with SYNC_FILE_RANGE_WRITE; length 0 means to the end). Returns 0 or -1 with errno.
int aw_start_writeback(int fd, long long offset, long long length);

/// Asks the CPU to start loading the cache line at `p` for writing: a hash table's probe that
/// comes after other work on the same record then finds its slot in cache.
static inline void aw_prefetch_for_write(const void *p) {
    __builtin_prefetch(p, 1, 3);
}

/// Asks the CPU to start loading the cache line at `p` for reading: a gather that reads rows in
/// another order than they are stored issues it some rows ahead.
static inline void aw_prefetch_for_read(const void *p) {
    __builtin_prefetch(p, 0, 3);
}

#endif
