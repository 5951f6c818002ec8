/**
 * Model-facing limits: how much of a file, a search or a command reaches the
 * model, and how characters are counted as tokens. The token budget of a
 * conversation is read and tuned here; each tool imports its numbers.
 */

// --- Tokens ---------------------------------------------------------------

/** Characters per token when estimating a prompt; errs high for code and non-English text. */
export const CHARS_PER_TOKEN = 3.5;
/** Estimates are padded by this factor so a request never overflows by a rounding error. */
export const TOKEN_SAFETY_MARGIN = 1.1;
/** Tokens of framing the APIs add around each message. */
export const PER_MESSAGE_OVERHEAD_TOKENS = 4;
/** Characters per output token, for billing a response cut before its usage arrived. */
export const CHARS_PER_OUTPUT_TOKEN = 4;
/** Characters one response may stream per token of the output limit: ~4 a token, twice over. */
export const RESPONSE_CHARS_PER_TOKEN = 8;
/** Whatever the model's output limit, one response streams at most this many characters. */
export const MAX_RESPONSE_CHARS = 8 * 1024 * 1024;

// --- Tool calls and results -----------------------------------------------

/** Largest tool input accepted (UTF-8 bytes of its JSON); larger files go through NORTH_FILE. */
export const MAX_TOOL_INPUT_BYTES = 50 * 1024;
/** One tool result may fill at most this share of the context window. */
export const MAX_TOOL_RESULT_SHARE = 0.25;
/** An MCP tool's result is cut to this many bytes: servers do not bound their own output. */
export const MAX_MCP_RESULT_BYTES = 100 * 1024;
/** One hook's context text for the model is cut to this many characters. */
export const MAX_HOOK_CONTEXT_CHARS = 10_000;

// --- Reading --------------------------------------------------------------

/** read_file returns at most this many lines per call; the model continues from endLine + 1. */
export const READ_MAX_LINES = 500;
/** …and at most this many bytes, so a file of long lines cannot flood the context. */
export const READ_MAX_BYTES = 100 * 1024;
/** Lines in read_file's `head` and `tail` (orientation in a large file). */
export const READ_EDGE_LINES = 10;
/** Characters kept of a `head` or `tail` line. */
export const READ_EDGE_LINE_CHARS = 300;
/** read_around shows at most this many lines on each side of its anchor. */
export const READ_AROUND_MAX_CONTEXT_LINES = 200;
/** read_around cuts longer lines (minified code) to this many characters. */
export const READ_AROUND_MAX_LINE_CHARS = 500;
/**
 * With an editor's files (ACP), files up to this size are read and written
 * through the editor; larger ones (logs, generated data) stay on the disk,
 * since the whole text travels in one protocol message.
 */
export const CLIENT_FILE_MAX_BYTES = 8 * 1024 * 1024;
/** read_readme returns the first this many bytes: enough to orient, cheap in every conversation. */
export const README_MAX_BYTES = 8 * 1024;

// --- Listing and searching ------------------------------------------------

/** list_root shows at most this many top-level entries. */
export const ROOT_MAX_ENTRIES = 200;
/** find_files: paths returned by default and at most. */
export const FIND_FILES_DEFAULT_LIMIT = 50;
export const FIND_FILES_MAX_LIMIT = 500;
/** search_text: matches returned by default and at most. */
export const SEARCH_DEFAULT_LIMIT = 50;
export const SEARCH_MAX_LIMIT = 200;
/** search_text: context lines the model may ask for around each match. */
export const SEARCH_MAX_CONTEXT_LINES = 5;
/** A matching line is cut around the match to this many characters. */
export const SEARCH_LINE_CHARS = 300;

// --- Digests (what the history keeps of a large result) -------------------

/** A read the model bounded to this many lines is never digested. */
export const DIGEST_BOUNDED_RANGE_LINES = 60;
/** A long read_file keeps its first and last lines. */
export const DIGEST_READ_HEAD_LINES = 50;
export const DIGEST_READ_TAIL_LINES = 10;
/** search_text keeps this many matches. */
export const DIGEST_SEARCH_MATCHES = 10;
/** find_files keeps this many paths. */
export const DIGEST_FILES = 20;
/** shell_run keeps the first and last lines of output: the command's start and its verdict. */
export const DIGEST_SHELL_HEAD_LINES = 20;
export const DIGEST_SHELL_TAIL_LINES = 10;

// --- Shell output ---------------------------------------------------------

/** shell_run keeps the first and last bytes of output (the ring); the middle is dropped and counted. */
export const SHELL_HEAD_BYTES = 64 * 1024;
export const SHELL_TAIL_BYTES = 64 * 1024;

// --- Background processes -------------------------------------------------

/** Each background process keeps its latest output in memory up to this many bytes. */
export const PROCESS_RING_BYTES = 256 * 1024;
/** Beyond the ring, output goes to a spill file of at most this many bytes (the latest kept). */
export const PROCESS_SPILL_CAP_BYTES = 32 * 1024 * 1024;
/** Finished processes a table remembers; older ones are forgotten first. */
export const PROCESS_FINISHED_KEPT = 32;
/** One read returns at most this many bytes of output (the latest); the rest is counted. */
export const PROCESS_READ_MAX_BYTES = 32 * 1024;
/** "tail" returns this many lines by default, and at most PROCESS_READ_MAX_LINES. */
export const PROCESS_TAIL_DEFAULT_LINES = 50;
export const PROCESS_READ_MAX_LINES = 1000;
/** A background start returns after the first output or this long, whichever comes first. */
export const PROCESS_FIRST_OUTPUT_MS = 1000;
/** After input, a send waits for the program's answer: output, then this long without more... */
export const PROCESS_ANSWER_QUIET_MS = 60;
/** ...or this long at most. */
export const PROCESS_ANSWER_MAX_MS = 1000;
/** After SIGTERM, how long a stopped process gets before SIGKILL. */
export const PROCESS_STOP_GRACE_MS = 3000;
/** Lines an exit notice carries (the last ones), and characters kept of each notice line. */
export const PROCESS_NOTICE_LINES = 5;
export const PROCESS_NOTICE_LINE_CHARS = 300;
/** A line longer than this (no newline yet) is matched and kept as it is so far. */
export const PROCESS_LINE_MAX_CHARS = 8 * 1024;
/** process_read's wait: default and longest timeout. */
export const PROCESS_WAIT_DEFAULT_MS = 30_000;
export const PROCESS_WAIT_MAX_MS = 600_000;
/** process_read keeps the first and last lines of a long read in the history. */
export const DIGEST_PROCESS_HEAD_LINES = 10;
export const DIGEST_PROCESS_TAIL_LINES = 20;
/** A tty's screen is never digested; a run of this many identical filler rows (vi's `~`) reads as one line. */
export const SCREEN_FOLD_MIN_ROWS = 4;

// --- Structure --------------------------------------------------------------

/** get_file_symbols lists at most this many symbols. */
export const MAX_SYMBOLS = 500;
/** get_file_outline lists at most this many items. */
export const MAX_OUTLINE_ITEMS = 250;
/** find_blocks lists at most this many blocks. */
export const MAX_BLOCKS = 300;
/** find_code_block returns at most this many blocks. */
export const MAX_CODE_BLOCKS = 20;

// --- Language servers (the lsp tools) ---------------------------------------

/** Definitions, references and workspace symbols listed per call; the rest are counted. */
export const LSP_MAX_LOCATIONS = 50;
/** Document symbols listed per call (nested ones included). */
export const LSP_MAX_SYMBOLS = 300;
/** Hover text kept (type and docs). */
export const LSP_HOVER_MAX_CHARS = 3000;
/** One result line's preview, trimmed. */
export const LSP_PREVIEW_CHARS = 160;
/** Files looked at to find the project's main language (workspace symbols with no server running). */
export const LSP_LANGUAGE_SAMPLE_FILES = 5000;
/** Files larger than this get no preview line. */
export const LSP_PREVIEW_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** A navigation call's ceiling: starting the server and its answer (a server's own timeouts are shorter). */
export const LSP_CALL_TIMEOUT_MS = 60_000;

// --- Input from programs --------------------------------------------------

/**
 * Largest prompt a program may send: one stream-json stdin line, one Node API
 * prompt (UTF-8 bytes). Longer ones are refused whole, never kept.
 */
export const MAX_PROMPT_BYTES = 10 * 1024 * 1024;

// --- Review diffs ------------------------------------------------------------

/**
 * A reviewed file's whole old and new text ride along with its unified diff
 * (FileDiff.oldText/newText, for an editor's own diff view) only up to this
 * many characters each; beyond it the unified diff alone bounds memory.
 */
export const FULL_TEXT_DIFF_CHARS = 1024 * 1024;
