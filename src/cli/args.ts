import { parseArgs } from "node:util";

export interface CliArgs {
    command: "run" | "models" | "list" | "resume" | "rewind" | "doctor" | "help" | "version";
    print: boolean;
    prompt?: string;
    outputFormat?: string;
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
    /** `--trust`: print mode honours the project's own hooks, MCP servers and approvals. */
    trust: boolean;
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
}

export type ArgsResult = { ok: true; args: CliArgs } | { ok: false; error: string };

const SUBCOMMANDS: Record<string, CliArgs["command"]> = {
    models: "models",
    list: "list",
    conversations: "list",
    resume: "resume",
    rewind: "rewind",
    doctor: "doctor",
};

/** Parses argv (without node and the script). Kept free of heavy imports: it runs for `--version`. */
export function parseCliArgs(argv: string[]): ArgsResult {
    let parsed;
    try {
        parsed = parseArgs({
            args: argv,
            allowPositionals: true,
            strict: true,
            options: {
                print: { type: "boolean", short: "p" },
                "output-format": { type: "string" },
                model: { type: "string", short: "m" },
                mode: { type: "string" },
                path: { type: "string" },
                "max-turns": { type: "string" },
                "log-level": { type: "string" },
                "allow-edits": { type: "boolean" },
                "allow-config-edits": { type: "boolean" },
                "allow-shell": { type: "boolean" },
                "allowed-command": { type: "string", multiple: true },
                trust: { type: "boolean" },
                resume: { type: "string", short: "r" },
                continue: { type: "boolean", short: "c" },
                "fork-session": { type: "boolean" },
                "no-alt-screen": { type: "boolean" },
                to: { type: "string" },
                code: { type: "boolean" },
                conversation: { type: "boolean" },
                force: { type: "boolean" },
                version: { type: "boolean", short: "v" },
                help: { type: "boolean", short: "h" },
            },
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
        trust: values.trust ?? false,
        resume: values.resume,
        continue: values.continue ?? false,
        forkSession: values["fork-session"] ?? false,
        altScreen: !(values["no-alt-screen"] ?? false),
        rewindTo: values.to,
        rewindCode: values.code ?? false,
        rewindConversation: values.conversation ?? false,
        force: values.force ?? false,
    };
    if (values.help) return { ok: true, args: { command: "help", print: false, ...permissions } };
    if (values.version)
        return { ok: true, args: { command: "version", print: false, ...permissions } };
    const first = positionals[0];
    const subcommand = !values.print && first !== undefined ? SUBCOMMANDS[first] : undefined;
    const rest = subcommand ? positionals.slice(1) : positionals;
    const rewindFlag = ["to", "code", "conversation", "force"].find((f) => f in values);
    if (rewindFlag && subcommand !== "rewind")
        return { ok: false, error: `--${rewindFlag} is an option of north rewind` };
    return {
        ok: true,
        args: {
            command: subcommand ?? "run",
            print: values.print ?? false,
            prompt: rest.length > 0 ? rest.join(" ") : undefined,
            outputFormat: values["output-format"],
            model: values.model,
            mode: values.mode,
            path: values.path,
            maxTurns: values["max-turns"],
            logLevel: values["log-level"],
            ...permissions,
        },
    };
}

export const HELP_TEXT = `North — a terminal AI coding agent

Usage:
  north [PROMPT] [options]      open the chat in this repository (interactive; PROMPT is sent first)
  north -p "PROMPT" [options]   answer one prompt and exit (print mode)
  echo "PROMPT" | north -p      prompt from stdin
  north -p --resume ID "PROMPT"  continue a saved conversation (--continue: this project's latest)
  north models                  list the models North knows and which are ready
  north list                    list saved conversations, newest first (also: north conversations)
  north resume [ID]             continue a saved conversation in the chat (no ID: pick one)
  north doctor                  check Node, keys, endpoints, rg, git, config files, trust and MCP
  north rewind ID [--to N]      list a conversation's prompts; --to N restores the code and the
                                conversation to before prompt N (--code or --conversation: only
                                that; --force: also files changed since North changed them)

Options:
  -p, --print                   print mode: run the prompt, print the answer, exit
      --output-format FORMAT    text (default), json, or stream-json (one JSON event per line)
  -m, --model NAME              model alias or id (see \`north models\`), or provider:model-id
      --mode MODE               agent (default: every tool), ask (read-only tools) or plan (plan first)
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
      --allowed-command CMD     run exactly this command string; repeatable (print mode)
      --trust                   use this project's hooks, MCP servers and standing approvals
                                without asking (print mode; the chat asks once per project)
  -v, --version                 print the version
  -h, --help                    show this help

Environment:
  NO_COLOR                                no colours in the interactive mode
  ANTHROPIC_API_KEY, OPENAI_API_KEY       keys for Claude and GPT models
  ANTHROPIC_BASE_URL, OPENAI_BASE_URL     point a provider at another endpoint
  NORTH_CONFIG_DIR (~/.config/north)      config.json: saved model, custom providers and models
  NORTH_DATA_DIR (~/.north)               conversations, costs, project profiles
  XDG_STATE_HOME (~/.local/state)         log at north/north.log

Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error, 130 interrupted.
`;
