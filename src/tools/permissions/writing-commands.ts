/**
 * The well-known commands that write files named by their arguments: their
 * options (to find the operands) and which operands they write. Read by
 * `argument-writes.ts`.
 */

/** Which operands a command writes. */
export type Written =
    /** Every operand (`tee`, `touch`, `rm`). */
    | "all"
    /** The last operand, or `-t DIR`; each source lands in it when it is a folder (`cp`). */
    | "destination"
    /** As `destination`, and the sources, which disappear (`mv`). */
    | "destination and sources"
    /** The second operand (`uniq IN OUT`). */
    | "second"
    /** The operands after the script, only with in-place editing (`sed -i`, `perl -i`). */
    | "in place"
    /** The first operand, else the files the patch names (`patch -p1 < fix.diff`). */
    | "patched";

export interface WritingCommand {
    written: Written;
    /** Short options without a value. */
    flags: string;
    /** Short options that take a value (glued or the next word). */
    withValue: string;
    /** Long options without a value, or with an optional one given only as `=value`. */
    longFlags: readonly string[];
    /** Long options that take a value (`--name=value` or the next word). */
    longWithValue: readonly string[];
    /** Options whose value is a written file (`-t DIR`, `-o FILE`, `--target-directory`). */
    target?: readonly string[];
    /** Options that make every operand written (`install -d`). */
    allOperands?: readonly string[];
    /** Unknown options are taken as flags: the command has too many to list (`rsync`). */
    lenient?: boolean;
    /** Options that make it act on whole folders (`cp -r`, `rm -r`); "always" for `mv`. */
    recursive?: readonly string[] | "always";
}

const COMMON = ["help", "version"];
const BACKUP = ["backup", "context", "debug"];

const CP: WritingCommand = {
    written: "destination",
    flags: "abdfHilLnPpRrsTuvxZ",
    withValue: "St",
    longFlags: [
        ...COMMON,
        ...BACKUP,
        "archive",
        "attributes-only",
        "copy-contents",
        "dereference",
        "force",
        "interactive",
        "link",
        "no-clobber",
        "no-dereference",
        "parents",
        "preserve",
        "recursive",
        "reflink",
        "remove-destination",
        "strip-trailing-slashes",
        "symbolic-link",
        "no-target-directory",
        "one-file-system",
        "update",
        "verbose",
        "keep-directory-symlink",
    ],
    longWithValue: ["no-preserve", "sparse", "suffix", "target-directory"],
    target: ["-t", "--target-directory"],
    recursive: ["-r", "-R", "-a", "--recursive", "--archive"],
};

export const WRITING_COMMANDS: Record<string, WritingCommand> = {
    tee: {
        written: "all",
        flags: "aip",
        withValue: "",
        longFlags: [...COMMON, "append", "ignore-interrupts", "output-error"],
        longWithValue: [],
    },
    cp: CP,
    mv: {
        written: "destination and sources",
        flags: "bfinTuvZ",
        withValue: "St",
        longFlags: [
            ...COMMON,
            ...BACKUP,
            "force",
            "interactive",
            "no-clobber",
            "no-copy",
            "exchange",
            "strip-trailing-slashes",
            "no-target-directory",
            "update",
            "verbose",
        ],
        longWithValue: ["suffix", "target-directory"],
        target: ["-t", "--target-directory"],
        recursive: "always",
    },
    install: {
        written: "destination",
        flags: "bcCdDpsTvZ",
        withValue: "gmoSt",
        longFlags: [
            ...COMMON,
            ...BACKUP,
            "compare",
            "directory",
            "preserve-timestamps",
            "strip",
            "no-target-directory",
            "verbose",
            "preserve-context",
        ],
        longWithValue: ["group", "mode", "owner", "suffix", "target-directory", "strip-program"],
        target: ["-t", "--target-directory"],
        allOperands: ["-d", "--directory"],
    },
    ln: {
        written: "destination",
        flags: "bdFfiLnPrsTv",
        withValue: "St",
        longFlags: [
            ...COMMON,
            "backup",
            "directory",
            "force",
            "interactive",
            "logical",
            "no-dereference",
            "no-target-directory",
            "physical",
            "relative",
            "symbolic",
            "verbose",
        ],
        longWithValue: ["suffix", "target-directory"],
        target: ["-t", "--target-directory"],
    },
    rsync: {
        written: "destination",
        flags: "vqcarRbulLkKHpEAXogDtOJNUSxzhPWnidmyC0s8",
        withValue: "eBfTM",
        longFlags: [],
        longWithValue: [
            "exclude",
            "include",
            "exclude-from",
            "include-from",
            "files-from",
            "filter",
            "rsh",
            "rsync-path",
            "temp-dir",
            "partial-dir",
            "backup-dir",
            "suffix",
            "chmod",
            "chown",
            "compare-dest",
            "copy-dest",
            "link-dest",
            "log-file",
            "log-file-format",
            "out-format",
            "bwlimit",
            "timeout",
            "max-size",
            "min-size",
            "password-file",
            "port",
            "info",
            "debug",
            "skip-compress",
            "modify-window",
            "block-size",
            "max-delete",
            "compress-level",
            "iconv",
            "usermap",
            "groupmap",
            "remote-option",
            "write-batch",
            "only-write-batch",
            "read-batch",
        ],
        lenient: true,
        recursive: ["-r", "-a", "--recursive", "--archive"],
    },
    touch: {
        written: "all",
        flags: "acfhm",
        withValue: "drt",
        longFlags: [...COMMON, "no-create", "no-dereference"],
        longWithValue: ["date", "reference", "time"],
    },
    truncate: {
        written: "all",
        flags: "co",
        withValue: "rs",
        longFlags: [...COMMON, "no-create", "io-blocks"],
        longWithValue: ["reference", "size"],
    },
    rm: {
        written: "all",
        flags: "dfiIrRv",
        withValue: "",
        longFlags: [
            ...COMMON,
            "dir",
            "force",
            "interactive",
            "one-file-system",
            "no-preserve-root",
            "preserve-root",
            "recursive",
            "verbose",
        ],
        longWithValue: [],
        recursive: ["-r", "-R", "--recursive"],
    },
    unlink: { written: "all", flags: "", withValue: "", longFlags: COMMON, longWithValue: [] },
    shred: {
        written: "all",
        flags: "fuvxz",
        withValue: "ns",
        longFlags: [...COMMON, "force", "remove", "verbose", "exact", "zero"],
        longWithValue: ["iterations", "random-source", "size"],
    },
    uniq: {
        written: "second",
        flags: "cdDiuz",
        withValue: "fsw",
        longFlags: [
            ...COMMON,
            "count",
            "repeated",
            "all-repeated",
            "group",
            "ignore-case",
            "unique",
            "zero-terminated",
        ],
        longWithValue: ["skip-fields", "skip-chars", "check-chars"],
    },
    sed: {
        written: "in place",
        flags: "nrEsuz",
        withValue: "efl",
        longFlags: [
            ...COMMON,
            "in-place",
            "quiet",
            "silent",
            "debug",
            "posix",
            "regexp-extended",
            "separate",
            "sandbox",
            "unbuffered",
            "null-data",
            "zero-terminated",
            "follow-symlinks",
        ],
        longWithValue: ["expression", "file", "line-length"],
    },
    patch: {
        written: "patched",
        flags: "bcelnNeRstuEfZTv",
        withValue: "BdDFgiopruVYzL",
        longFlags: [],
        longWithValue: [
            "prefix",
            "directory",
            "ifdef",
            "fuzz",
            "get",
            "input",
            "output",
            "strip",
            "reject-file",
            "version-control",
            "basename-prefix",
            "suffix",
            "quoting-style",
            "backup-if-mismatch",
            "reject-format",
            "read-only",
        ],
        target: ["-o", "--output", "-r", "--reject-file"],
        lenient: true,
    },
};
