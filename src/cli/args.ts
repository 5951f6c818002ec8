import { parseArgs } from "node:util";
import { closestMatches, levenshtein } from "../util/levenshtein";

export interface CliArgs {
    command:
        | "run"
        | "models"
        | "list"
        | "resume"
        | "rewind"
        | "doctor"
        | "completion"
        | "mcp"
        | "acp"
        | "review"
        | "export"
        | "attempts"
        | "plugin"
        | "help"
        | "version";
    print: boolean;
    prompt?: string;
    outputFormat?: string;
    /** `--input-format`: text (default) or stream-json (prompts and approvals as JSON lines on stdin). */
    inputFormat?: string;
    model?: string;
    mode?: string;
    path?: string;
    maxTurns?: string;
    logLevel?: string;
    allowEdits: boolean;
    /** `--allow-config-edits`: with `--allow-edits`, protected configuration files too. */
    allowConfigEdits: boolean;
    allowShell: boolean;
    allowedCommands: string[];
    /** `--disallowed-command PATTERN` (repeatable): commands never run, as `Bash(PATTERN)` deny rules. */
    disallowedCommands: string[];
    /** `--trust`: print mode honours the project's own hooks, MCP servers and approvals. */
    trust: boolean;
    /** `--sandbox`: shell commands run in the OS sandbox (see tools/sandbox). */
    sandbox: boolean;
    /** `--resume ID` in print mode, or the id of `north resume ID`. */
    resume?: string;
    continue: boolean;
    /** `--fork-session`: with --resume/--continue, continue in a new copy of the conversation. */
    forkSession: boolean;
    /** Interactive mode: run in the alternate screen (off with `--no-alt-screen`). */
    altScreen: boolean;
    /** `north rewind`: `--to N` (1-based prompt), `--code` / `--conversation` only, `--force`. */
    rewindTo?: string;
    rewindCode: boolean;
    rewindConversation: boolean;
    force: boolean;
    /** `--system-prompt`: replaces North's own system prompt. */
    systemPrompt?: string;
    /** `--append-system-prompt`: added after North's system prompt. */
    appendSystemPrompt?: string;
    /** `--add-dir DIR` (repeatable): more roots the tools may read and, with approval, write. */
    addDirs: string[];
    /** `--max-budget-usd N`: no new model request once the session's cost reaches N. */
    maxBudgetUsd?: string;
    /** `--web-search`: offer the provider's server-side web search for this run. */
    webSearch: boolean;
    /** `--disallowed-tools`: tool names (North's or Claude Code's), split on commas and spaces. */
    disallowedTools: string[];
    /** `north mcp ...`: everything after `mcp`, parsed by the mcp command itself. */
    mcpArgs?: string[];
    /** `north plugin ...`: everything after `plugin`, parsed by the plugin command itself. */
    pluginArgs?: string[];
    /** `north models`' own flags (`--refresh`). */
    modelsArgs?: string[];
    /** `--worktree [NAME]`: run in a new git worktree; `true` when no name was given. */
    worktree?: string | true;
    /** `-p --attempts N`: N independent attempts, each in its own worktree. */
    attempts?: string;
    /** `north review --base REF`: review the branch against REF. */
    base?: string;
    /** `north review --staged`: review what is staged. */
    staged?: boolean;
    /** `north export --format md|json|atif`. */
    format?: string;
    /** `north export --output FILE`, `north attempts` output file. */
    output?: string;
}

export type ArgsResult = { ok: true; args: CliArgs } | { ok: false; error: string };

const SUBCOMMANDS: Record<string, CliArgs["command"]> = {
    models: "models",
    list: "list",
    conversations: "list",
    resume: "resume",
    rewind: "rewind",
    doctor: "doctor",
    completion: "completion",
    mcp: "mcp",
    acp: "acp",
    review: "review",
    export: "export",
    attempts: "attempts",
    plugin: "plugin",
    plugins: "plugin",
};

/** Every option; the completion scripts are built from this table too. */
export const CLI_OPTIONS = {
    print: { type: "boolean", short: "p" },
    "output-format": { type: "string" },
    "input-format": { type: "string" },
    model: { type: "string", short: "m" },
    mode: { type: "string" },
    path: { type: "string" },
    "max-turns": { type: "string" },
    "log-level": { type: "string" },
    "allow-edits": { type: "boolean" },
    "allow-config-edits": { type: "boolean" },
    "allow-shell": { type: "boolean" },
    "allowed-command": { type: "string", multiple: true },
    "disallowed-command": { type: "string", multiple: true },
    trust: { type: "boolean" },
    sandbox: { type: "boolean" },
    resume: { type: "string", short: "r" },
    continue: { type: "boolean", short: "c" },
    "fork-session": { type: "boolean" },
    "no-alt-screen": { type: "boolean" },
    "system-prompt": { type: "string" },
    "append-system-prompt": { type: "string" },
    "add-dir": { type: "string", multiple: true },
    "max-budget-usd": { type: "string" },
    "web-search": { type: "boolean" },
    "disallowed-tools": { type: "string", multiple: true },
    worktree: { type: "string", short: "w" },
    attempts: { type: "string" },
    base: { type: "string" },
    staged: { type: "boolean" },
    format: { type: "string" },
    output: { type: "string", short: "o" },
    // Claude Code's spelling, so its scripts run unchanged.
    disallowedTools: { type: "string", multiple: true },
    to: { type: "string" },
    code: { type: "boolean" },
    conversation: { type: "boolean" },
    force: { type: "boolean" },
    version: { type: "boolean", short: "v" },
    help: { type: "boolean", short: "h" },
} as const;

/** The subcommand names, for "did you mean" and completion. */
export const SUBCOMMAND_NAMES = Object.keys(SUBCOMMANDS);

/** Parses argv (without node and the script). Kept free of heavy imports: it runs for `--version`. */
export function parseCliArgs(argv: string[]): ArgsResult {
    // `north mcp add NAME -- CMD -y`: its own options (-e, -H, --scope), parsed by the mcp command.
    if (argv[0] === "mcp") {
        const base = parseCliArgs([]);
        if (base.ok)
            return { ok: true, args: { ...base.args, command: "mcp", mcpArgs: argv.slice(1) } };
    }
    // `north plugin install NAME@MARKET --yes`: its own options, parsed by the plugin command.
    if (argv[0] === "plugin" || argv[0] === "plugins") {
        const base = parseCliArgs([]);
        if (base.ok)
            return {
                ok: true,
                args: { ...base.args, command: "plugin", pluginArgs: argv.slice(1) },
            };
    }
    if (argv[0] === "models" && argv.length > 1) {
        const base = parseCliArgs([]);
        if (base.ok)
            return {
                ok: true,
                args: { ...base.args, command: "models", modelsArgs: argv.slice(1) },
            };
    }
    argv = withWorktreeValue(argv);
    const misuse = findOptionMisuse(argv);
    if (misuse) return { ok: false, error: misuse };
    let parsed;
    try {
        parsed = parseArgs({
            args: argv,
            allowPositionals: true,
            strict: true,
            options: CLI_OPTIONS,
        });
    } catch (error) {
        return { ok: false, error: (error as Error).message };
    }
    const { values, positionals } = parsed;
    const permissions = {
        allowEdits: values["allow-edits"] ?? false,
        allowConfigEdits: values["allow-config-edits"] ?? false,
        allowShell: values["allow-shell"] ?? false,
        allowedCommands: values["allowed-command"] ?? [],
        disallowedCommands: values["disallowed-command"] ?? [],
        trust: values.trust ?? false,
        sandbox: values.sandbox ?? false,
        resume: values.resume,
        continue: values.continue ?? false,
        forkSession: values["fork-session"] ?? false,
        altScreen: !(values["no-alt-screen"] ?? false),
        rewindTo: values.to,
        rewindCode: values.code ?? false,
        rewindConversation: values.conversation ?? false,
        force: values.force ?? false,
        systemPrompt: values["system-prompt"],
        appendSystemPrompt: values["append-system-prompt"],
        addDirs: values["add-dir"] ?? [],
        maxBudgetUsd: values["max-budget-usd"],
        webSearch: values["web-search"] ?? false,
        worktree: values.worktree === WORKTREE_UNNAMED ? (true as const) : values.worktree,
        attempts: values.attempts,
        base: values.base,
        staged: values.staged ?? false,
        format: values.format,
        output: values.output,
        disallowedTools: [...(values["disallowed-tools"] ?? []), ...(values.disallowedTools ?? [])]
            .flatMap((list) => list.split(/[\s,]+/))
            .filter((name) => name.length > 0),
    };
    if (values.help) return { ok: true, args: { command: "help", print: false, ...permissions } };
    if (values.version)
        return { ok: true, args: { command: "version", print: false, ...permissions } };
    const first = positionals[0];
    const subcommand = !values.print && first !== undefined ? SUBCOMMANDS[first] : undefined;
    const rest = subcommand ? positionals.slice(1) : positionals;
    const typo = subcommand ? undefined : mistypedSubcommand(argv, positionals, values.print);
    if (typo) return { ok: false, error: typo };
    // `--force` is also `north attempts remove`'s.
    const rewindFlag = ["to", "code", "conversation", "force"].find(
        (f) => f in values && !(f === "force" && subcommand === "attempts")
    );
    if (rewindFlag && subcommand !== "rewind")
        return { ok: false, error: `--${rewindFlag} is an option of north rewind` };
    const reviewFlag = ["base", "staged"].find((f) => f in values);
    if (reviewFlag && subcommand !== "review")
        return { ok: false, error: `--${reviewFlag} is an option of north review` };
    if ("format" in values && subcommand !== "export")
        return { ok: false, error: "--format is an option of north export" };
    return {
        ok: true,
        args: {
            command: subcommand ?? "run",
            print: values.print ?? false,
            prompt: rest.length > 0 ? rest.join(" ") : undefined,
            outputFormat: values["output-format"],
            inputFormat: values["input-format"],
            model: values.model,
            mode: values.mode,
            path: values.path,
            maxTurns: values["max-turns"],
            logLevel: values["log-level"],
            ...permissions,
        },
    };
}

/** What `--worktree` given no name becomes, so the string option always has a value. */
const WORKTREE_UNNAMED = "\u0000unnamed";

/** A worktree name: one word of letters, digits, `.`, `_`, `-` and `/` (a branch-like name). */
const WORKTREE_NAME = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$/;

/**
 * `--worktree` takes an optional name: `--worktree NAME` when the next word
 * looks like one (no spaces, no leading `-`), else no name. A one-word
 * prompt right after it is read as the name; `--worktree=` or `--` avoids that.
 */
function withWorktreeValue(argv: string[]): string[] {
    const out: string[] = [];
    for (let i = 0; i < argv.length; i++) {
        const word = argv[i]!;
        if (word === "--") {
            out.push(...argv.slice(i));
            break;
        }
        if (word === "--worktree=" || word === "-w=") {
            out.push(`--worktree=${WORKTREE_UNNAMED}`);
            continue;
        }
        if (word !== "--worktree" && word !== "-w") {
            out.push(word);
            continue;
        }
        const next = argv[i + 1];
        if (next !== undefined && WORKTREE_NAME.test(next)) {
            out.push(`--worktree=${next}`);
            i++;
        } else out.push(`--worktree=${WORKTREE_UNNAMED}`);
    }
    return out;
}

type OptionName = keyof typeof CLI_OPTIONS;

function optionLabel(name: string, rawName: string): string {
    return rawName.startsWith("--") ? `--${name}` : rawName;
}

/**
 * Unknown options and options missing their value, in North's words (Node's
 * own messages quote oddly and suggest nothing). Null when argv is well formed.
 */
function findOptionMisuse(argv: string[]): string | null {
    const { tokens } = parseArgs({
        args: argv,
        allowPositionals: true,
        strict: false,
        tokens: true,
        options: CLI_OPTIONS,
    });
    const longNames = Object.keys(CLI_OPTIONS).map((name) => `--${name}`);
    for (const token of tokens) {
        if (token.kind !== "option") continue;
        const label = optionLabel(token.name, token.rawName);
        const known = CLI_OPTIONS[token.name as OptionName] as
            (typeof CLI_OPTIONS)[OptionName] | undefined;
        if (!known) {
            const [closest] = token.rawName.startsWith("--")
                ? closestMatches(token.rawName, longNames, 1)
                : [];
            return closest
                ? `unknown option ${token.rawName} (did you mean ${closest}?)`
                : `unknown option ${token.rawName} (see north --help)`;
        }
        if (known.type === "boolean" && token.inlineValue) return `${label} takes no value`;
        if (known.type === "string") {
            if (token.value === undefined) return `${label} needs a value`;
            if (!token.inlineValue && token.value.startsWith("-")) {
                return `${label} needs a value (got ${token.value}; write ${label}=${token.value} if that is the value)`;
            }
        }
    }
    return null;
}

/**
 * `north modles`: a lone word one or two letters from a subcommand is a typo,
 * not a prompt. After `--` it is sent as written.
 */
function mistypedSubcommand(
    argv: string[],
    positionals: string[],
    print: boolean | undefined
): string | null {
    const [word] = positionals;
    if (print || positionals.length !== 1 || !word || !/^[a-z]{3,}$/.test(word)) return null;
    if (argv.includes("--")) return null;
    const allowed = word.length > 5 ? 2 : 1;
    const typo = SUBCOMMAND_NAMES.find((name) => levenshtein(word, name) <= allowed);
    if (!typo) return null;
    return `unknown command ${word} (did you mean north ${typo}? To send "${word}" as a prompt: north -- ${word})`;
}

export const HELP_TEXT = `North — a terminal AI coding agent

Usage:
  north [PROMPT] [options]      open the chat in this repository (interactive; PROMPT is sent first)
  north -p "PROMPT" [options]   answer one prompt and exit (print mode)
  echo "PROMPT" | north -p      prompt from stdin
  north -p --resume ID "PROMPT"  continue a saved conversation (--continue: this project's latest)
  north models                  list the models North knows and which are ready
  north models --refresh        ask each configured provider for the models it lists
  north list                    list saved conversations, newest first (also: north conversations)
  north resume [ID]             continue a saved conversation in the chat (no ID: pick one)
  north doctor                  check Node, keys, endpoints, rg, git, config files, trust and MCP
  north rewind ID [--to N]      list a conversation's prompts; --to N restores the code and the
                                conversation to before prompt N (--code or --conversation: only
                                that; --force: also files changed since North changed them)
  north completion SHELL        print a completion script for bash, zsh or fish
  north mcp COMMAND             manage MCP servers: add, add-json, list, get, remove
                                (north mcp --help)
  north plugin COMMAND          Claude Code plugins: marketplace add|list|update|remove, install,
                                list, update, enable, disable, remove (north plugin --help)
  north review [TARGET] [--base REF] [--staged] [--output-format text|json]
                                review a change with read-only tools: the working tree (default),
                                --staged, a branch against --base, a commit range A..B, a commit,
                                pr/N, files, or - (a diff on stdin); prints findings with severity
                                and confidence
  north export ID [--format md|json|atif] [-o FILE]
                                export a saved conversation (md: as /export writes; atif: an agent
                                trajectory for Harbor)
  north attempts [list|show ID|apply ID|remove ID [--force]]
                                the parallel attempts of \`north -p --attempts N\` and their worktrees
  north acp [options]           serve an editor over the Agent Client Protocol on stdio (Zed,
                                JetBrains, Neovim, Emacs); options: --model, --trust, --sandbox,
                                --add-dir, --disallowed-tools, --allowed-command,
                                --disallowed-command, --system-prompt, --append-system-prompt,
                                --max-budget-usd, --log-level

Options:
  -p, --print                   print mode: run the prompt, print the answer, exit
      --output-format FORMAT    text (default), json, or stream-json (one JSON event per line)
      --input-format FORMAT     text (default), or stream-json: with -p --output-format stream-json,
                                read prompts and approval answers as JSON lines on stdin
  -m, --model NAME              model alias or id (see \`north models\`), or provider:model-id
      --mode MODE               agent (default: every tool), ask (read-only tools), accept-edits
                                (the chat: edits without review) or plan (plan first)
      --path DIR                project directory (default: the current directory's repository)
      --max-turns N             stop after N model turns
      --log-level LEVEL         debug, info (default), warn or error
  -r, --resume ID               continue conversation ID (any unique prefix of it)
  -c, --continue                continue this project's latest conversation
      --fork-session            with --resume or --continue: continue in a new copy (a fork)
      --no-alt-screen           interactive: stay in the normal screen (answers go to the scrollback)
      --allow-edits             apply the model's edits without review (print mode)
      --allow-config-edits      with --allow-edits, also edits to protected configuration
                                (.north/, .claude/, .mcp.json, .vscode/tasks.json, ...) (print mode)
      --allow-shell             run every command the model asks for (print mode)
      --allowed-command CMD     run this command without asking; repeatable (print mode);
                                "npm test" exactly, "npm test:*" any that start so
      --disallowed-command CMD  never run commands this pattern covers; repeatable
      --trust                   use this project's hooks, MCP servers and standing approvals
                                without asking (print mode; the chat asks once per project)
      --sandbox                 run shell commands in an OS sandbox: writes only in the project,
                                no network (bubblewrap on Linux, sandbox-exec on macOS)
      --system-prompt TEXT      replace North's system prompt with TEXT
      --append-system-prompt TEXT  add TEXT after North's system prompt
      --add-dir DIR             let the tools read DIR too (and, with approval, write); repeatable
      --disallowed-tools NAMES  never offer these tools (North's or Claude Code's names, such as
                                Bash or Edit; comma or space separated; repeatable; also
                                spelled --disallowedTools)
      --max-budget-usd N        make no new model request once this session has cost N dollars
                                (print mode: exit 1)
      --web-search              offer the provider's own web search (Anthropic, OpenAI) for
                                this run; WebFetch(domain:…) rules limit it
  -w, --worktree [NAME]         run in a new git worktree on a new branch (north/NAME), in North's
                                data folder; on exit keep, merge or remove it
      --attempts N              with -p: run N independent attempts in N worktrees in parallel,
                                then compare them (north attempts apply ID keeps one)
  -v, --version                 print the version
  -h, --help                    show this help

Environment:
  NO_COLOR                                no colours in the interactive mode
  ANTHROPIC_API_KEY, OPENAI_API_KEY       keys for Claude and GPT models
  ANTHROPIC_BASE_URL, OPENAI_BASE_URL     point a provider at another endpoint
  NORTH_CONFIG_DIR (~/.config/north)      config.json: saved model, custom providers and models
  NORTH_DATA_DIR (~/.north)               conversations, costs, project profiles
  XDG_STATE_HOME (~/.local/state)         log at north/north.log
  NORTH_ENABLE_TELEMETRY=1                usage metrics and events to your OTLP collector
                                          (OTEL_EXPORTER_OTLP_ENDPOINT; README: Usage monitoring)

Exit codes: 0 success, 1 runtime failure (or --max-budget-usd reached), 2 usage or
configuration error, 130 interrupted (Ctrl+C), 143 terminated (SIGTERM).
`;
