#ifndef AW_SYSTEM_H
#define AW_SYSTEM_H

/// Atomically swaps two existing paths (Linux renameat2 RENAME_EXCHANGE).
/// Returns 0 on success, -1 with errno set otherwise.
int aw_exchange_paths(const char *a, const char *b);

/// Flushes the whole filesystem holding `fd` (Linux syncfs). Returns 0 or -1 with errno.
int aw_sync_filesystem(int fd);

/// Starts writing a byte range of `fd` to disk without waiting for it (Linux sync_file_range
/// with SYNC_FILE_RANGE_WRITE; length 0 means to the end). Returns 0 or -1 with errno.
int aw_start_writeback(int fd, long long offset, long long length);

#endif
