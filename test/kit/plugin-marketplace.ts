/**
 * A Claude Code plugin marketplace built in a test: a real git repository
 * (fixed author, committer and dates, so its commits are the same on every
 * run) holding `.claude-plugin/marketplace.json` and two plugins:
 *
 * - `alpha`: command `greet` (a prompt with `$ARGUMENTS`), agent `helper`,
 *   skill `tidy`, and hooks (SessionStart, PostToolUse) that run
 *   `node "${CLAUDE_PLUGIN_ROOT}/hooks/mark.mjs" <event>`, which appends
 *   `<event> <CLAUDE_PLUGIN_ROOT>` to the file named by `PLUGIN_MARKER_ENV`
 *   (so a test sees a hook ran, from which copy, and that installing ran none);
 * - `beta`: a stdio MCP server (`server.mjs`, a real `@modelcontextprotocol/sdk`
 *   server with one tool `echo`, appending `McpStart <CLAUDE_PLUGIN_ROOT>` to
 *   the same marker file when it starts) and an output style `terse`.
 *
 * Options add plugins, symlinks, marketplace-entry fields and raw files for
 * the bad-input tests.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { devNull } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/** The environment variable naming the file alpha's hooks append to. */
export const PLUGIN_MARKER_ENV = "NORTH_TEST_PLUGIN_MARKER";

/** The text beta's `echo` tool answers with, around what it was given. */
export const ECHO_PREFIX = "beta echoes: ";

export interface TestMarketplace {
    dir: string;
    name: string;
    /** The HEAD commit. */
    commit(): string;
    /** Rewrites a file (relative to the repository), commits, returns the new sha. */
    change(path: string, text: string, message?: string): string;
}

export interface TestMarketplaceOptions {
    /** The marketplace's name (default `north-test`). */
    name?: string;
    /** More plugins under `plugins/<name>/`: relative path → text; each gets an entry `./plugins/<name>`. */
    extraPlugins?: Record<string, Record<string, string>>;
    /** Fields merged into a plugin's marketplace entry (`strict`, `source`, …), or `null` to leave it out. */
    entries?: Record<string, Record<string, unknown> | null>;
    /** Symlinks to create: path relative to the repository → target (as written into the link). */
    symlinks?: Record<string, string>;
    /** Files written as is, relative to the repository (after the plugins; may replace one of theirs). */
    files?: Record<string, string>;
    /** Leave the folder without `git init` (a marketplace that is not a git repository). */
    noGit?: boolean;
}

/** git with no user or system configuration and fixed identities and dates. */
const GIT_ENV: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: devNull,
    GIT_CONFIG_GLOBAL: devNull,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "North Test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "North Test",
    GIT_COMMITTER_EMAIL: "test@example.com",
    GIT_AUTHOR_DATE: "2026-01-01T12:00:00Z",
    GIT_COMMITTER_DATE: "2026-01-01T12:00:00Z",
};

export function testGit(cwd: string, ...args: string[]): string {
    return execFileSync(
        "git",
        ["-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", ...args],
        { cwd, env: GIT_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }
    ).trim();
}

/** The SDK's ESM server modules, by absolute URL: the installed copy has no node_modules above it. */
function sdkModuleUrl(subpath: string): string {
    const cjs = createRequire(import.meta.url).resolve(`@modelcontextprotocol/sdk/${subpath}`);
    return pathToFileURL(cjs.replace(/[\\/]dist[\\/]cjs[\\/]/, "/dist/esm/")).href;
}

const MARK_SCRIPT = `// Appends "<event> <CLAUDE_PLUGIN_ROOT>" to the file $${PLUGIN_MARKER_ENV} names.
import { appendFileSync } from "node:fs";
const file = process.env.${PLUGIN_MARKER_ENV};
if (file) appendFileSync(file, \`\${process.argv[2]} \${process.env.CLAUDE_PLUGIN_ROOT ?? "(no root)"}\\n\`);
`;

function serverScript(): string {
    return `// A stdio MCP server with one tool, echo; notes its start in $${PLUGIN_MARKER_ENV}'s file.
import { appendFileSync } from "node:fs";
import { Server } from ${JSON.stringify(sdkModuleUrl("server/index.js"))};
import { StdioServerTransport } from ${JSON.stringify(sdkModuleUrl("server/stdio.js"))};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(sdkModuleUrl("types.js"))};

const server = new Server({ name: "beta", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
        {
            name: "echo",
            description: "Echoes the text back.",
            inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        },
    ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== "echo") throw new Error("unknown tool " + request.params.name);
    const text = String(request.params.arguments?.text ?? "");
    return { content: [{ type: "text", text: ${JSON.stringify(ECHO_PREFIX)} + text }] };
});
const marker = process.env.${PLUGIN_MARKER_ENV};
if (marker) appendFileSync(marker, \`McpStart \${process.env.CLAUDE_PLUGIN_ROOT ?? "(no root)"}\\n\`);
await server.connect(new StdioServerTransport());
`;
}

function hookCommand(event: string): { type: "command"; command: string; timeout: number } {
    return {
        type: "command",
        command: `node "\${CLAUDE_PLUGIN_ROOT}/hooks/mark.mjs" ${event}`,
        timeout: 20,
    };
}

/** alpha's files: relative path → text. */
export function alphaFiles(name = "alpha"): Record<string, string> {
    return {
        ".claude-plugin/plugin.json": json({
            name,
            version: "1.0.0",
            description: "A command, an agent, a skill and two hooks.",
            author: { name: "North Test" },
            license: "MIT",
        }),
        "commands/greet.md": [
            "---",
            "description: Greets someone by name",
            "argument-hint: <name>",
            "---",
            "Say a warm hello to $ARGUMENTS, in one sentence.",
            "",
        ].join("\n"),
        "agents/helper.md": [
            "---",
            "name: helper",
            "description: Helps with small chores in the repository",
            "---",
            "You are a careful helper. Do the one chore you are asked and report what you did.",
            "",
        ].join("\n"),
        "skills/tidy/SKILL.md": [
            "---",
            "name: tidy",
            "description: Tidies imports in a file",
            "---",
            "Sort the imports of the file the user names, and remove unused ones.",
            "",
        ].join("\n"),
        "hooks/hooks.json": json({
            hooks: {
                SessionStart: [{ hooks: [hookCommand("SessionStart")] }],
                PostToolUse: [{ matcher: "*", hooks: [hookCommand("PostToolUse")] }],
            },
        }),
        "hooks/mark.mjs": MARK_SCRIPT,
    };
}

/** beta's files: relative path → text. */
export function betaFiles(name = "beta"): Record<string, string> {
    return {
        ".claude-plugin/plugin.json": json({
            name,
            version: "2.0.0",
            description: "An MCP server and an output style.",
            author: { name: "North Test" },
        }),
        ".mcp.json": json({
            mcpServers: {
                echo: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"] },
            },
        }),
        "server.mjs": serverScript(),
        "output-styles/terse.md": [
            "---",
            "name: terse",
            "description: Answers in as few words as will do",
            "keep-coding-instructions: true",
            "---",
            "Answer in as few words as will do. No preamble, no summary.",
            "",
        ].join("\n"),
    };
}

function json(value: unknown): string {
    return JSON.stringify(value, null, 4) + "\n";
}

function writeTree(root: string, files: Record<string, string>): void {
    for (const [path, text] of Object.entries(files)) {
        const file = join(root, path);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, text);
    }
}

/** Builds the marketplace repository in `<parent>/<name>` and commits it. */
export function makeTestMarketplace(
    parent: string,
    o: TestMarketplaceOptions = {}
): TestMarketplace {
    const name = o.name ?? "north-test";
    const dir = join(parent, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });

    const plugins: Record<string, Record<string, string>> = {
        alpha: alphaFiles(),
        beta: betaFiles(),
        ...o.extraPlugins,
    };
    const entries: Array<Record<string, unknown>> = [];
    for (const [plugin, files] of Object.entries(plugins)) {
        writeTree(join(dir, "plugins", plugin), files);
        const extra = o.entries?.[plugin];
        if (extra === null) continue;
        entries.push({
            name: plugin,
            source: `./plugins/${plugin}`,
            description: `The ${plugin} test plugin`,
            ...extra,
        });
    }
    writeTree(dir, {
        ".claude-plugin/marketplace.json": json({
            name,
            owner: { name: "North Test" },
            description: "Plugins for North's tests",
            plugins: entries,
        }),
    });
    for (const [path, target] of Object.entries(o.symlinks ?? {})) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        symlinkSync(target, join(dir, path));
    }
    if (o.files) writeTree(dir, o.files);

    if (!o.noGit) {
        testGit(dir, "init", "-q");
        testGit(dir, "add", "-A");
        testGit(dir, "commit", "-q", "-m", "Two test plugins");
    }
    const commit = (): string => testGit(dir, "rev-parse", "HEAD");
    return {
        dir,
        name,
        commit,
        change(path, text, message = `Change ${path}`) {
            writeTree(dir, { [path]: text });
            testGit(dir, "add", "-A");
            testGit(dir, "commit", "-q", "-m", message);
            return commit();
        },
    };
}

/**
 * An environment for a `north` child whose every folder is under `root`:
 * HOME (so `~/.claude`, `~/.north` and git's global config are empty),
 * config, data and state; no model keys (a test adds the fake server's).
 */
export function isolatedNorthEnv(root: string): NodeJS.ProcessEnv {
    const home = join(root, "home");
    for (const dir of ["home", "config", "data", "state"])
        mkdirSync(join(root, dir), { recursive: true });
    return {
        PATH: process.env.PATH,
        HOME: home,
        NORTH_CONFIG_DIR: join(root, "config"),
        NORTH_DATA_DIR: join(root, "data"),
        XDG_STATE_HOME: join(root, "state"),
        XDG_CONFIG_HOME: join(home, ".config"),
        // No GIT_TERMINAL_PROMPT: North's own git must refuse to prompt by itself.
        GIT_CONFIG_NOSYSTEM: "1",
    };
}
