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

/// Opens a new file without a name in `folder` for reading and writing (Linux O_TMPFILE), or,
/// where the file system has no such files, one made by mkostemp and unlinked at once: nothing of
/// it outlives the process. Close-on-exec. Returns the descriptor, or -1 with errno set.
int aw_open_unnamed_file(const char *folder);

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

/// Lets malloc reuse freed memory instead of returning it to the kernel and faulting in fresh
/// zeroed pages for the next array: blocks up to 32 MiB come from the heap (not a mapping each),
/// and the heap is trimmed only past 256 MiB free at its top. Why these two (docs/PERFORMANCE.md):
/// each stage frees large arrays the next would otherwise fault in and zero again; larger
/// thresholds kept so much freed memory that the 10M job's peak passed its goal.
void aw_malloc_reuse_freed_memory(void);

#endif
