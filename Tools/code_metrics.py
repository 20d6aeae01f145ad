#!/usr/bin/env python3
"""Size and shape of the Swift sources, and the checks `make test` enforces on them.

    python3 Tools/code_metrics.py            # the table: files and lines per module, raw pointers,
                                             # allocations, long functions, long lines
    python3 Tools/code_metrics.py --check    # exit 1 when a rule below is broken (`make test`)
    python3 Tools/code_metrics.py --check-memory   # the first rule only

Rules (docs/DECISIONS.md, "Code shape"):
- `allocate(`, `deallocate(`, `posix_memalign`, `mmap(` and `unsafeBitCast` appear only under
  Sources/AreaWatchCore/Memory/ (the owned memory types) and in C targets.
- raw pointer types (`UnsafePointer`, `UnsafeMutableRawBufferPointer`, …) are named only under
  Core/Memory and in the files listed in RAW_POINTER_FILES, each with its reason: a C library or a
  system call that takes a pointer, or a loop where a `Span` measured slower. Borrowed bytes are
  `Span`/`RawSpan` everywhere else (docs/DECISIONS.md, "Memory"). A listed file that no longer
  names them must leave the list.
- no function, initializer or subscript body is longer than 80 lines (docs/DECISIONS.md, "Style").

Comments and string literals are blanked before anything is counted, so a rule named in a comment
or a message does not trip the check.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "Sources")
MEMORY_HOME = os.path.join("Sources", "AreaWatchCore", "Memory") + os.sep
MAX_FUNCTION_LINES = 80
RAW_MEMORY = re.compile(r"\ballocate\(|\bdeallocate\(|\bposix_memalign\b|\bmmap\(|\bunsafeBitCast\b")
RAW_POINTER = re.compile(r"\bUnsafe(Mutable)?(Raw)?(Buffer)?Pointer\b")
ALLOCATE = re.compile(r"\ballocate\(")

# Outside Core/Memory, the files that may name raw pointer types, and why.
C_BOUNDARY = "at a C library, system call or library API that takes a pointer"
STORED_VIEW = "keeping a borrowed view in a stored property (a Span there needs the experimental Lifetimes feature)"
MEASURED = "where a Span form measured slower or crashed the compiler (PERFORMANCE.md, tried and not kept)"
RAW_POINTER_FILES = {
    "Sources/AreaWatchCore/Formats/ColumnSnapshotFormat.swift": C_BOUNDARY,  # madvise, then pread fills
    "Sources/AreaWatchFormats/Gzip.swift": C_BOUNDARY,  # zlib
    "Sources/AreaWatchFuzzing/FuzzDriver.swift": C_BOUNDARY,  # libFuzzer's entry point
    "Sources/FuzzCSV/FuzzCSV.swift": C_BOUNDARY,
    "Sources/FuzzJSON/FuzzJSON.swift": C_BOUNDARY,
    "Sources/FuzzValues/FuzzValues.swift": C_BOUNDARY,
    "Sources/AreaWatchIngest/ByteSource.swift": C_BOUNDARY,  # read(2)
    "Sources/AreaWatchIngest/CanonicalRecordSink.swift": C_BOUNDARY,  # swift-crypto's SHA256 over a buffer
    "Sources/AreaWatchIngest/IncidentKeys.swift": C_BOUNDARY,  # swift-crypto's SHA256 over a buffer
    "Sources/AreaWatchIngest/IncidentPipeline.swift": C_BOUNDARY,  # pthread mutex and condition
    "Sources/AreaWatchIngest/RejectsWriter.swift": C_BOUNDARY,  # fwrite
    "Sources/AreaWatchJobs/ScaleOutFiles.swift": C_BOUNDARY,  # read(2)
    "Sources/AreaWatchReport/OutputFiles.swift": C_BOUNDARY,  # write(2)
    "Sources/AreaWatchStore/SQLite.swift": C_BOUNDARY,  # the sqlite3 API
    "Sources/AreaWatchStore/SQLiteFilePages.swift": C_BOUNDARY,  # pwrite(2)
    "Sources/AreaWatchCore/Model/Incident.swift": STORED_VIEW,  # IncidentBatch
    "Sources/AreaWatchIngest/ByteBuffer.swift": STORED_VIEW,
    "Sources/AreaWatchIngest/ChunkBuffer.swift": STORED_VIEW,
    "Sources/AreaWatchIngest/CSVScanner.swift": STORED_VIEW,
    "Sources/AreaWatchIngest/JSONRecordMapper.swift": STORED_VIEW,
    "Sources/AreaWatchIngest/JSONRecordSource.swift": STORED_VIEW,
    "Sources/AreaWatchIngest/JSONSWAR.swift": STORED_VIEW,  # loads at the stream's and tape's cursors
    "Sources/AreaWatchIngest/JSONStream.swift": STORED_VIEW,
    "Sources/AreaWatchIngest/JSONTape.swift": STORED_VIEW,
    "Sources/AreaWatchIngest/ParallelCSVIngest.swift": STORED_VIEW,
    "Sources/AreaWatchIngest/RecordBuilder.swift": STORED_VIEW,  # RawValue
    "Sources/AreaWatchStore/SQLiteTablePages.swift": STORED_VIEW,  # pages handed out by address
    "Sources/AreaWatchCore/Text/NumberFormat.swift": MEASURED,
    "Sources/AreaWatchFormats/Parquet/RLEHybrid.swift": MEASURED,
    "Sources/AreaWatchQuery/IncidentColumnsBuilder.swift": MEASURED,
}
DECLARATION = re.compile(r"\b(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<])")


def strip_comments_and_strings(text):
    """The text with comments and string literal contents replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r"#*", text[i:]).group(0))
            start = i + hashes
            triple = text.startswith('"""', start)
            close = ('"""' if triple else '"') + "#" * hashes
            j = start + (3 if triple else 1)
            while j < n and not text.startswith(close, j):
                if text[j] == "\\" and hashes == 0:
                    j += 1
                elif text[j] == "\n" and not triple:
                    break
                j += 1
            j = min(n, j + len(close))
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def long_functions(code):
    """(first line, length in lines, declaration) of every function body longer than the limit."""
    found = []
    for match in DECLARATION.finditer(code):
        brace = code.find("{", match.end())
        if brace < 0:
            continue
        # A requirement without a body (a protocol's) reaches the next declaration first.
        header = code[match.end():brace]
        if re.search(r"\b(func|var|let|init|case|struct|class|enum|protocol)\b", header) or "\n\n" in header:
            continue
        depth, j = 0, brace
        while j < len(code):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        first = code.count("\n", 0, match.start()) + 1
        last = code.count("\n", 0, j) + 1
        if last - first + 1 > MAX_FUNCTION_LINES:
            found.append((first, last - first + 1, " ".join(match.group(0).split()).rstrip("(<")))
    return found


def swift_files(folder):
    for base, _, names in os.walk(folder):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def module_of(path):
    return os.path.relpath(path, SOURCES).split(os.sep)[0]


def main():
    check = "--check" in sys.argv or "--check-memory" in sys.argv
    memory_only = "--check-memory" in sys.argv
    modules = {}
    pointer_files, allocate_files, long_lines = set(), set(), 0
    broken = []
    functions_over = []
    for path in sorted(swift_files(SOURCES)):
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        code = strip_comments_and_strings(text)
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        entry = modules.setdefault(module_of(path), [0, 0])
        entry[0] += 1
        entry[1] += lines
        long_lines += sum(1 for line in text.split("\n") if len(line) > 120)
        if RAW_POINTER.search(code):
            pointer_files.add(rel)
            if not rel.startswith(MEMORY_HOME) and rel not in RAW_POINTER_FILES:
                line = code.count("\n", 0, RAW_POINTER.search(code).start()) + 1
                broken.append(f"{rel}:{line}: a raw pointer type outside {MEMORY_HOME} and RAW_POINTER_FILES "
                              "(borrowed bytes are a Span or RawSpan)")
        elif rel in RAW_POINTER_FILES:
            broken.append(f"{rel}: names no raw pointer type any more: take it out of RAW_POINTER_FILES")
        if ALLOCATE.search(code):
            allocate_files.add(rel)
        if not rel.startswith(MEMORY_HOME):
            for m in RAW_MEMORY.finditer(code):
                line = code.count("\n", 0, m.start()) + 1
                broken.append(f"{rel}:{line}: raw memory ({m.group(0).rstrip('(')}) outside {MEMORY_HOME}")
        for first, length, declaration in long_functions(code):
            functions_over.append(f"{rel}:{first}: {declaration}: body of {length} lines (limit {MAX_FUNCTION_LINES})")

    total_files = sum(v[0] for v in modules.values())
    print(f"{'module':<24} {'files':>6} {'lines':>7}")
    for name in sorted(modules):
        print(f"{name:<24} {modules[name][0]:>6} {modules[name][1]:>7}")
    print(f"{'total':<24} {total_files:>6} {sum(v[1] for v in modules.values()):>7}")
    memory = sum(1 for f in pointer_files if f.startswith(MEMORY_HOME))
    reasons = {}
    for f in pointer_files:
        if f in RAW_POINTER_FILES:
            reasons[RAW_POINTER_FILES[f]] = reasons.get(RAW_POINTER_FILES[f], 0) + 1
    print(f"files naming raw pointer types: {len(pointer_files)} of {total_files} (Core/Memory {memory}"
          + "".join(f"; {n} {reason.split(' (')[0]}" for reason, n in sorted(reasons.items())) + ")")
    print(f"files calling allocate(: {len(allocate_files)}")
    print(f"functions over {MAX_FUNCTION_LINES} lines: {len(functions_over)}")
    print(f"lines over 120 characters: {long_lines}")
    if check:
        problems = broken + ([] if memory_only else functions_over)
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            print(f"code shape: {len(problems)} problem(s)", file=sys.stderr)
            sys.exit(1)
        print("code shape: ok")


if __name__ == "__main__":
    main()
