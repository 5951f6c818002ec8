/**
 * Permission rules in Claude Code's syntax (`permissions.allow/deny/ask`):
 * `Bash(npm test:*)`, `Read(./.env)`, `Edit(src/**)`, `WebFetch(domain:x.com)`, `mcp__server__tool`,
 * `mcp__server`, bare tool names (`shell_run`, `Bash`). Deny beats ask beats
 * allow. Path globs follow gitignore: `//abs`, `~/home`, `/from-the-project`,
 * `./x` or `x/y` from the project root, and a bare name (`.env`, `*.pem`)
 * at any depth; a rule naming a folder covers everything in it.
 */
import path from "node:path";
import picomatch from "picomatch";
import { validateCommandPattern } from "./command-judge";
import { realPathOfWriteSync } from "../path-guard";
import { isPathInside } from "../../util/read-regular-file";
import type { CommandRules } from "./types";

export type RuleKind = "allow" | "deny" | "ask";
export const RULE_KINDS: readonly RuleKind[] = ["deny", "ask", "allow"];

export type PathAccess = "read" | "edit";

export type RuleTarget =
    /** A tool by North's name, a Claude Code alias it declares, or an MCP tool's full name. */
    | { type: "tool"; name: string }
    /** Every tool of one MCP server (`mcp__server`, `mcp__server__*`). */
    | { type: "mcp_server"; prefix: string }
    /** `Bash(pattern)`: judged by the command judge. */
    | { type: "command"; pattern: string }
    | {
          type: "path";
          access: PathAccess;
          matches: (absPath: string) => boolean;
          /** The same as globs over absolute paths (a folder covers what is below it), to match patterns against. */
          globs: readonly string[];
      }
    /** `WebFetch(domain:example.com)`: that host and its subdomains. */
    | { type: "domain"; domain: string }
    /** Claude Code tools North does not have (`WebSearch`): kept, never matched. */
    | { type: "ignored"; note: string };

export interface PermissionRule {
    kind: RuleKind;
    /** As written: `Bash(npm test:*)`. */
    text: string;
    /** Where it comes from: a settings file's path, `--allowed-command`, "this session". */
    source: string;
    target: RuleTarget;
    /** False while the rule does not count (a project's allow rule once trust is lost). */
    active(): boolean;
}

/** What a matching rule decides, and which rule it was. */
export interface RuleMatch {
    decision: RuleKind;
    rule: PermissionRule;
}

export interface RuleBases {
    projectRoot: string;
    home: string;
}

/** Claude Code's edit tools: an `Edit(...)` rule covers every one of them. */
const EDIT_RULE_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);
const IGNORED_TOOLS = new Set(["WebSearch"]);
const DOMAIN_SPEC = /^domain:((?:\*\.)?[a-z0-9.-]+|\[[0-9a-f:.]+\])$/i;
const RULE_SHAPE = /^([A-Za-z_][A-Za-z0-9_-]*(?:__\*)?)(?:\((.*)\))?$/s;

function pathMatcher(
    spec: string,
    bases: RuleBases
): { matches: (absPath: string) => boolean; globs: string[] } {
    let root = bases.projectRoot;
    let glob = spec;
    let anchored = true;
    if (spec.startsWith("//")) {
        root = "/";
        glob = spec.slice(2);
    } else if (spec.startsWith("~/")) {
        root = bases.home;
        glob = spec.slice(2);
    } else if (spec.startsWith("/")) glob = spec.slice(1);
    else if (spec.startsWith("./")) glob = spec.slice(2);
    else anchored = spec.replace(/\/+$/, "").includes("/");
    glob = glob.replace(/\/+$/, "");
    if (!anchored) glob = `**/${glob}`;
    const matchers = [globUnder(root, glob)];
    const globs = [path.posix.join(root, glob)];
    // Files are judged also where their symlinks lead, so a rule naming a folder
    // reached through a link (`~/notes` with a linked home, /tmp on macOS)
    // matches there too: its literal folders are resolved once.
    const literal = literalFolders(glob);
    if (anchored && literal.length > 0) {
        const base = path.join(root, ...literal);
        const realBase = realPathOfWriteSync(base);
        if (realBase !== undefined && realBase !== base) {
            const rest = glob.split("/").slice(literal.length).join("/");
            matchers.push(globUnder(realBase, rest === "" ? null : rest));
            globs.push(path.posix.join(realBase, rest));
        }
    }
    return { matches: (absPath) => matchers.some((matches) => matches(absPath)), globs };
}

/**
 * Whether `absPath` lies below `root` and matches `glob`; `glob` null: `root`
 * itself and everything below (a resolved rule that named one file or folder).
 */
function globUnder(root: string, glob: string | null): (absPath: string) => boolean {
    const test = glob === null ? () => true : picomatch(glob, { dot: true });
    return (absPath) => {
        if (!isPathInside(root, absPath)) return false;
        const rel = path.relative(root, absPath);
        if (rel === "") return glob === null;
        // gitignore: a pattern that names a folder covers everything inside it.
        const parts = rel.split(path.sep);
        for (let i = parts.length; i > 0; i--) {
            if (test(parts.slice(0, i).join("/"))) return true;
        }
        return false;
    };
}

/** The leading segments of a glob with no pattern characters in them. */
function literalFolders(glob: string): string[] {
    const parts = glob.split("/");
    const end = parts.findIndex((part) => part === "" || /[*?[\]{}()!+@\\]/.test(part));
    return end === -1 ? parts : parts.slice(0, end);
}

/**
 * Parses one rule. `knownTools` holds the tool names and aliases a bare name
 * may use (MCP names are always accepted: servers start later).
 */
export function parseRule(
    raw: unknown,
    bases: RuleBases,
    knownTools: ReadonlySet<string>
): { target: RuleTarget } | { error: string } {
    if (typeof raw !== "string")
        return { error: `a rule must be a string (got ${JSON.stringify(raw)})` };
    const text = raw.trim();
    if (text === "") return { error: "the rule is empty" };
    const opens = [...text].filter((c) => c === "(").length;
    const closes = [...text].filter((c) => c === ")").length;
    const shape = RULE_SHAPE.exec(text);
    if (!shape || (shape[2] === undefined && (opens > 0 || closes > 0))) {
        return opens !== closes || (opens > 0 && !text.endsWith(")"))
            ? { error: `"${text}" has unbalanced parentheses` }
            : { error: `"${text}" is not a rule: write Tool or Tool(pattern)` };
    }
    const tool = shape[1] ?? "";
    const spec = shape[2];
    if (spec !== undefined && spec.trim() === "") {
        return { error: `"${text}" has an empty pattern; write ${tool} alone for every use` };
    }
    if (IGNORED_TOOLS.has(tool)) {
        return { target: { type: "ignored", note: `North has no ${tool} tool` } };
    }
    if (tool.startsWith("mcp__")) {
        if (spec !== undefined) return { error: `"${text}": MCP rules take no pattern` };
        const [server, ...rest] = tool.slice(5).split("__");
        const name = rest.join("__");
        if (!server) return { error: `"${text}" names no MCP server` };
        if (name === "" || name === "*") {
            return { target: { type: "mcp_server", prefix: `mcp__${server}__` } };
        }
        return { target: { type: "tool", name: tool } };
    }
    if (spec === undefined) {
        if (!knownTools.has(tool)) return { error: `"${text}": no tool is called ${tool}` };
        return { target: { type: "tool", name: tool } };
    }
    if (tool === "Bash") {
        const invalid = validateCommandPattern(spec);
        return invalid === null
            ? { target: { type: "command", pattern: spec } }
            : { error: `"${text}": ${invalid}` };
    }
    if (tool === "WebFetch") {
        const domain = DOMAIN_SPEC.exec(spec.trim())?.[1]
            ?.toLowerCase()
            .replace(/^\[|\]$/g, "");
        return domain === undefined || domain === ""
            ? { error: `"${text}": write WebFetch(domain:example.com)` }
            : { target: { type: "domain", domain: domain.replace(/^\*?\./, "") } };
    }
    if (tool === "Read" || EDIT_RULE_TOOLS.has(tool)) {
        const access: PathAccess = tool === "Read" ? "read" : "edit";
        return { target: { type: "path", access, ...pathMatcher(spec.trim(), bases) } };
    }
    return {
        error: `"${text}": only Bash(…), Read(…), Edit(…), Write(…) and WebFetch(domain:…) take a pattern; write ${tool} alone`,
    };
}

/** One settings file's `permissions`, with its text to find each rule's line. */
export interface RuleSource {
    /** The file's path (or a flag's name) shown with its rules. */
    source: string;
    /** The lists as read; one that is not a list is reported and skipped. */
    permissions: Partial<Record<RuleKind, unknown>>;
    /** The file's text: a bad rule is reported with its line. */
    text?: string;
    /** Counts only while this holds (a project file's allow rules: while trusted). */
    allowActive?: () => boolean;
}

/** The 1-based line of rule `raw` of list `kind` in a settings file's text (first match). */
export function lineOfRule(text: string, kind: RuleKind, raw: unknown): number | undefined {
    const perms = text.indexOf('"permissions"');
    if (perms < 0) return undefined;
    const key = text.indexOf(`"${kind}"`, perms);
    if (key < 0) return undefined;
    let at = typeof raw === "string" ? text.indexOf(JSON.stringify(raw), key) : -1;
    if (at < 0) at = key;
    return text.slice(0, at).split("\n").length;
}

const ALWAYS = (): boolean => true;

/**
 * The rules in force for one session: every file's, then flags' and the
 * session's own (added as they come). Lookups skip inactive rules.
 */
export class PermissionRules {
    private readonly rules: PermissionRule[] = [];

    constructor(
        readonly bases: RuleBases,
        private readonly knownTools: ReadonlySet<string>
    ) {}

    /** Adds every rule of `source`; returns a warning per bad rule, naming file and line. */
    addSource(input: RuleSource): string[] {
        const warnings: string[] = [];
        for (const kind of RULE_KINDS) {
            const list = input.permissions[kind];
            if (list === undefined) continue;
            if (!Array.isArray(list)) {
                const line =
                    input.text === undefined ? undefined : lineOfRule(input.text, kind, undefined);
                const where = line === undefined ? input.source : `${input.source}:${line}`;
                warnings.push(
                    `${where}: permissions.${kind} must be a list of rules; it is ignored`
                );
                continue;
            }
            for (const raw of list as unknown[]) {
                const added = this.add(
                    kind,
                    raw,
                    input.source,
                    kind === "allow" ? input.allowActive : undefined
                );
                if (added === null) continue;
                const line =
                    input.text === undefined ? undefined : lineOfRule(input.text, kind, raw);
                const where = line === undefined ? input.source : `${input.source}:${line}`;
                warnings.push(`${where}: permissions.${kind}: ${added}; this rule is ignored`);
            }
        }
        return warnings;
    }

    /** Adds one rule; returns why it is not a rule, or null. */
    add(
        kind: RuleKind,
        raw: unknown,
        source: string,
        active: () => boolean = ALWAYS
    ): string | null {
        const parsed = parseRule(raw, this.bases, this.knownTools);
        if ("error" in parsed) return parsed.error;
        this.rules.push({ kind, text: String(raw).trim(), source, target: parsed.target, active });
        return null;
    }

    /** Whether anything could change a command's verdict: Bash patterns, or Edit deny/ask rules. */
    judgesCommands(): boolean {
        return this.rules.some(
            (r) =>
                r.active() &&
                (r.target.type === "command" ||
                    (r.target.type === "path" && r.target.access === "edit" && r.kind !== "allow"))
        );
    }

    /** Every rule, in force or not, in the order added. */
    list(): readonly PermissionRule[] {
        return this.rules;
    }

    /** Drops `rule` (one of `list()`) at once: `/permissions` removed it from its file. */
    remove(rule: PermissionRule): void {
        const index = this.rules.indexOf(rule);
        if (index >= 0) this.rules.splice(index, 1);
    }

    private strongest(matches: (rule: PermissionRule) => boolean): RuleMatch | undefined {
        for (const decision of RULE_KINDS) {
            const rule = this.rules.find((r) => r.kind === decision && r.active() && matches(r));
            if (rule) return { decision, rule };
        }
        return undefined;
    }

    /** The rule deciding a tool by name: its North name, its aliases, or its MCP server. */
    forTool(name: string, aliases: readonly string[] = []): RuleMatch | undefined {
        return this.strongest(({ target }) => {
            if (target.type === "tool")
                return target.name === name || aliases.includes(target.name);
            if (target.type === "mcp_server") return name.startsWith(target.prefix);
            return false;
        });
    }

    /** The rule deciding a read or an edit of `absPath`. */
    forPath(access: PathAccess, absPath: string): RuleMatch | undefined {
        return this.strongest(
            ({ target }) =>
                target.type === "path" && target.access === access && target.matches(absPath)
        );
    }

    /** The rule deciding a web request to `host` (a `WebFetch(domain:…)` rule covers subdomains). */
    forDomain(host: string): RuleMatch | undefined {
        const bare = host
            .toLowerCase()
            .replace(/^\[|\]$/g, "")
            .replace(/\.$/, "");
        return this.strongest(
            ({ target }) =>
                target.type === "domain" &&
                (bare === target.domain || bare.endsWith(`.${target.domain}`))
        );
    }

    /** The deny rule that keeps `absPath` from being read, if any. */
    readDenial(absPath: string): string | undefined {
        // Called for every file a walk visits: only deny rules can answer, so only they are tried.
        return this.rules.find(
            (r) =>
                r.kind === "deny" &&
                r.active() &&
                r.target.type === "path" &&
                r.target.access === "read" &&
                r.target.matches(absPath)
        )?.text;
    }

    /** The globs of the path rules of one kind and access in force, each with its rule's text. */
    pathGlobs(kind: RuleKind, access: PathAccess): { rule: string; glob: string }[] {
        return this.rules.flatMap((r) =>
            r.kind === kind && r.active() && r.target.type === "path" && r.target.access === access
                ? r.target.globs.map((glob) => ({ rule: r.text, glob }))
                : []
        );
    }

    /** The `Bash(...)` patterns in force, for the command judge, and the rule in force behind a pattern. */
    commandRules(): CommandRules & {
        ruleOf(kind: RuleKind, pattern: string): PermissionRule | undefined;
    } {
        const of = (kind: RuleKind): string[] =>
            this.rules.flatMap((r) =>
                r.kind === kind && r.active() && r.target.type === "command"
                    ? [r.target.pattern]
                    : []
            );
        return {
            allow: of("allow"),
            deny: of("deny"),
            ask: of("ask"),
            ruleOf: (kind, pattern) =>
                this.rules.find(
                    (r) =>
                        r.kind === kind &&
                        r.active() &&
                        r.target.type === "command" &&
                        r.target.pattern === pattern
                ),
        };
    }
}
