import { MODES } from "../agent/events";
import { BUILTIN_MODELS } from "../providers/catalogue";
import { LOG_LEVELS } from "../storage/logger";
import type { CLI_OPTIONS, CliArgs } from "./args";
import { printError, writeStdout } from "../util/terminal-text";
import { loadCatalogue } from "./model-catalogue";
import { listedModelNames, loadListedModels } from "../storage/listed-models";

export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof COMPLETION_SHELLS)[number];

const OUTPUT_FORMATS = ["text", "json", "stream-json"];
/** Options whose value is a directory. */
const DIRECTORY_OPTIONS = new Set(["path", "add-dir"]);

/**
 * The flag parser's own tables, passed in by main.ts: importing args.ts here would
 * move it out of the entry chunk and cost `north --version` a file.
 */
export interface CliTables {
    options: typeof CLI_OPTIONS;
    helpText: string;
    subcommands: string[];
}

/** What a completion script needs to know; built without loading any SDK. */
export interface CompletionData {
    options: Array<{ name: string; short?: string; takesValue: boolean; description: string }>;
    subcommands: string[];
    /** Fixed values of an option, by long name. */
    values: Record<string, string[]>;
}

/** `--name` → its one-line description, read from the help text so the two never disagree. */
function helpDescriptions(helpText: string): Map<string, string> {
    const descriptions = new Map<string, string>();
    for (const line of helpText.split("\n")) {
        const match = /^\s+(?:-\w, )?--([\w-]+)(?: [A-Z]+)?\s{2,}(.+)$/.exec(line);
        if (match?.[1] && match[2]) descriptions.set(match[1], match[2].trim());
    }
    return descriptions;
}

export function completionData(cli: CliTables, modelNames: string[]): CompletionData {
    const descriptions = helpDescriptions(cli.helpText);
    const options = Object.entries(cli.options).map(([name, spec]) => ({
        name,
        short: "short" in spec ? spec.short : undefined,
        takesValue: spec.type === "string",
        description: descriptions.get(name) ?? "",
    }));
    return {
        options,
        subcommands: cli.subcommands,
        values: {
            model: modelNames,
            mode: [...MODES],
            "output-format": OUTPUT_FORMATS,
            "log-level": [...LOG_LEVELS],
        },
    };
}

/** Single-quoted for sh-like shells. */
function quote(text: string): string {
    return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function bashCompletion(data: CompletionData): string {
    const flags = data.options.flatMap((o) => [`--${o.name}`, ...(o.short ? [`-${o.short}`] : [])]);
    const valueCases = Object.entries(data.values).map(([name, values]) => {
        const short = data.options.find((o) => o.name === name)?.short;
        const patterns = [`--${name}`, ...(short ? [`-${short}`] : [])].join("|");
        return `        ${patterns}) COMPREPLY=($(compgen -W ${quote(values.join(" "))} -- "$cur")); return ;;`;
    });
    const dirPatterns = [...DIRECTORY_OPTIONS].map((n) => `--${n}`).join("|");
    const otherValued = data.options
        .filter((o) => o.takesValue && !data.values[o.name] && !DIRECTORY_OPTIONS.has(o.name))
        .flatMap((o) => [`--${o.name}`, ...(o.short ? [`-${o.short}`] : [])])
        .join("|");
    return `# bash completion for north; load with: source <(north completion bash)
_north() {
    local cur prev
    cur="\${COMP_WORDS[COMP_CWORD]}"
    prev="\${COMP_WORDS[COMP_CWORD-1]}"
    case "$prev" in
${valueCases.join("\n")}
        ${dirPatterns}) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        ${otherValued}) COMPREPLY=(); return ;;
        completion) COMPREPLY=($(compgen -W ${quote(COMPLETION_SHELLS.join(" "))} -- "$cur")); return ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W ${quote(flags.join(" "))} -- "$cur"))
    elif [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W ${quote(data.subcommands.join(" "))} -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -F _north north
`;
}

export function zshCompletion(data: CompletionData): string {
    // _arguments' own specials get a backslash; a quote closes and reopens the '…' word.
    const zshQuote = (text: string): string =>
        text.replace(/[[\]:\\]/g, "\\$&").replace(/'/g, `'\\''`);
    const specs = data.options.map((o) => {
        const action = data.values[o.name]
            ? `:${o.name}:(${data.values[o.name]!.join(" ")})`
            : DIRECTORY_OPTIONS.has(o.name)
              ? `:directory:_files -/`
              : o.takesValue
                ? `:${o.name}: `
                : "";
        const description = `[${zshQuote(o.description)}]`;
        const repeat = o.name === "add-dir" || o.name === "allowed-command" ? "*" : "";
        const long = `${repeat}--${o.name}${description}${action}`;
        if (!o.short) return `        '${long}'`;
        return `        '(-${o.short} --${o.name})'{-${o.short},--${o.name}}'${description}${action}'`;
    });
    return `#compdef north
# zsh completion for north; load with: source <(north completion zsh)
_north() {
    _arguments -s \\
${specs.join(" \\\n")} \\
        '1: :(${data.subcommands.join(" ")})' \\
        '*:file:_files'
}
if [[ "$funcstack[1]" == "_north" ]]; then _north "$@"; else compdef _north north; fi
`;
}

export function fishCompletion(data: CompletionData): string {
    const lines = [
        "# fish completion for north; load with: north completion fish | source",
        `complete -c north -n __fish_use_subcommand -f -a ${quote(data.subcommands.join(" "))}`,
        `complete -c north -n '__fish_seen_subcommand_from completion' -f -a ${quote(COMPLETION_SHELLS.join(" "))}`,
    ];
    for (const o of data.options) {
        const parts = ["complete -c north", `-l ${o.name}`];
        if (o.short) parts.push(`-s ${o.short}`);
        if (data.values[o.name]) parts.push(`-x -a ${quote(data.values[o.name]!.join(" "))}`);
        else if (DIRECTORY_OPTIONS.has(o.name)) parts.push(`-x -a '(__fish_complete_directories)'`);
        else if (o.takesValue) parts.push("-x");
        if (o.description) parts.push(`-d ${quote(o.description)}`);
        lines.push(parts.join(" "));
    }
    return `${lines.join("\n")}\n`;
}

const SCRIPTS: Record<Shell, (data: CompletionData) => string> = {
    bash: bashCompletion,
    zsh: zshCompletion,
    fish: fishCompletion,
};

/** `north completion bash|zsh|fish`: prints the script; the models include configured ones. */
export function runCompletionCommand(args: CliArgs, cli: CliTables): number {
    const shell = args.prompt?.trim() as Shell | undefined;
    if (!shell || !COMPLETION_SHELLS.includes(shell)) {
        printError(
            `completion needs a shell: ${COMPLETION_SHELLS.join(", ")}${shell ? ` (got "${shell}")` : ""}`
        );
        return 2;
    }
    // A broken config must not break completion: the built-in models are offered then.
    const loaded = loadCatalogue(process.env);
    const models = loaded.ok ? loaded.catalogue.models : BUILTIN_MODELS;
    // Models the providers listed at the last `north models --refresh`, as provider:id.
    const listed = listedModelNames(loadListedModels(process.env));
    const names = [...new Set([...models.flatMap((m) => [m.alias, m.id]), ...listed])];
    writeStdout(SCRIPTS[shell](completionData(cli, names)));
    return 0;
}
