import { join } from "node:path";
import { detectRepoRoot } from "../project/repo-root";
import { type ModelCatalogue, buildCatalogue, resolveModel } from "../providers/models";
import { loadUserConfig } from "../storage/config";
import { dataDir } from "../storage/paths";
import type { Settings } from "../storage/settings/schema";
import { createTrustStore, readProjectConfig } from "../storage/trust";
import { createLanguageService } from "../tools/lsp/manager";
import { mergeMcpServers, parseMcpServers, parseProjectMcpConfig } from "../tools/mcp/config";
import { secretEnvNames } from "../util/child-env";
import type { CliArgs } from "./args";
import { printError, writeStdout } from "../util/terminal-text";
import {
    type CheckStatus,
    type DoctorCheck,
    checkAcpStdout,
    checkConfigFiles,
    checkLanguageServers,
    checkNode,
    checkPaths,
    checkProviders,
    checkTools,
    checkTrust,
} from "./doctor-checks";
import { checkPlugins } from "./doctor-plugins";

type Env = Record<string, string | undefined>;

/** Long enough for `npx` to start a cached server; `north doctor` should not hang on one. */
const MCP_STARTUP_TIMEOUT_MS = 5000;

const MARKS: Record<CheckStatus, string> = { ok: "✓", info: "-", warn: "!", fail: "✗" };

/**
 * The language servers a session here would know, found where the session
 * looks (PATH, the project's node_modules/.bin); none is started. The
 * project's `.lsp.json` counts only when it is trusted.
 */
async function checkLsp(
    repoRoot: string,
    trusted: boolean,
    config: Settings,
    env: Env
): Promise<DoctorCheck[]> {
    const warnings: string[] = [];
    const languages = createLanguageService({
        repoRoot,
        // Listing finds binaries and starts nothing, so it is safe in any project.
        trusted: true,
        settings: config.lsp,
        claudeLspJson: trusted ? readProjectConfig(repoRoot).files[".lsp.json"] : undefined,
        env,
        warn: (message) => warnings.push(message),
    });
    try {
        return [
            ...warnings.map((w): DoctorCheck => ({ status: "warn", label: "lsp", detail: w })),
            ...checkLanguageServers(languages.status(), trusted),
        ];
    } finally {
        await languages.dispose();
    }
}

/**
 * The configured MCP servers: a trusted project's and the user's are started
 * (and stopped again) to see whether they come up; an untrusted project's are
 * only listed.
 */
async function checkMcp(
    repoRoot: string,
    trusted: boolean,
    config: Settings,
    catalogue: ModelCatalogue,
    env: Env,
    version: string
): Promise<DoctorCheck[]> {
    const projectText = readProjectConfig(repoRoot).files[".mcp.json"];
    const project =
        projectText === undefined
            ? { servers: [], warnings: [] }
            : parseProjectMcpConfig(projectText, join(repoRoot, ".mcp.json"), env);
    const user = parseMcpServers(config.mcpServers ?? {}, {
        scope: "user",
        source: "user config",
        env,
    });
    const all = mergeMcpServers(project, user);
    const checks: DoctorCheck[] = all.warnings.map((w) => ({
        status: "warn",
        label: "mcp",
        detail: w,
    }));
    const toStart = all.servers.filter((s) => trusted || s.scope !== "project");
    for (const spec of all.servers.filter((s) => !toStart.includes(s))) {
        checks.push({
            status: "warn",
            label: `mcp ${spec.name}`,
            detail: "not started: the project is not trusted",
        });
    }
    if (toStart.length === 0) {
        if (all.servers.length === 0)
            checks.push({ status: "ok", label: "mcp", detail: "none configured" });
        return checks;
    }
    // The SDK is large: load it only when some server is configured.
    const [{ createMcpManager }, { nodeFetch }] = await Promise.all([
        import("../tools/mcp/manager"),
        import("../providers/node-fetch"),
    ]);
    const manager = createMcpManager(toStart, {
        clientName: "north",
        version,
        cwd: repoRoot,
        env,
        startupTimeoutMs: MCP_STARTUP_TIMEOUT_MS,
        hiddenEnv: secretEnvNames([...catalogue.providers.values()].map((p) => p.apiKeyEnv)),
        // Servers over HTTP are reached as the chat reaches them: through the proxy, if any.
        fetch: nodeFetch,
    });
    try {
        await manager.settled();
        for (const status of manager.status()) {
            const label = `mcp ${status.name}`;
            checks.push(
                status.state === "ready"
                    ? {
                          status: "ok",
                          label,
                          detail: `${status.transport}, ${status.scope}: started, ${status.tools.length} tool(s)`,
                      }
                    : {
                          status: "fail",
                          label,
                          detail: `${status.transport}, ${status.scope}: ${status.error ?? status.state}`,
                      }
            );
        }
    } finally {
        await manager.close();
    }
    return checks;
}

function formatCheck(check: DoctorCheck, width: number): string {
    return `${MARKS[check.status]} ${check.label.padEnd(width)}  ${check.detail}`;
}

/** `north doctor`: one line per check; exit 1 when any check failed. */
export async function runDoctorCommand(
    args: CliArgs,
    version: string,
    env: Env = process.env
): Promise<number> {
    if (args.prompt !== undefined) {
        printError(`north doctor takes no arguments (got "${args.prompt}")`);
        return 2;
    }
    const repo = detectRepoRoot(args.path ?? process.cwd());
    if (!repo.ok) {
        printError(`--path: ${repo.error}`);
        return 2;
    }
    const repoRoot = repo.root;
    const loaded = loadUserConfig(env);
    // A broken config.json is reported by the config check; the providers are then the built-in ones.
    const config: Settings = loaded.ok ? loaded.config : {};
    // As a run builds it, so doctor checks the model a run would use (Claude Code's switches, the first ready provider).
    const catalogue = buildCatalogue(config.providers, config.models, {
        env,
        smallFastModel: config.smallFastModel,
    });
    const wanted = resolveModel(catalogue, config.selectedModel ?? catalogue.defaultModelId);
    const trust = checkTrust(repoRoot, createTrustStore(dataDir(env)));

    // `north acp` as an editor would start this North: the same Node, entry script and environment.
    const cliPath = process.argv[1];
    const acp: Promise<DoctorCheck> =
        cliPath === undefined
            ? Promise.resolve({ status: "info", label: "acp stdout", detail: "not checked" })
            : checkAcpStdout(process.execPath, [cliPath, "acp"], { env, cwd: repoRoot });
    const [providers, tools, mcp, lsp, acpStdout, plugins] = await Promise.all([
        checkProviders(
            catalogue,
            new Set(Object.keys(config.providers ?? {})),
            wanted.ok ? wanted.provider.id : undefined,
            env
        ),
        checkTools(env),
        checkMcp(repoRoot, trust.trusted, config, catalogue, env, version),
        checkLsp(repoRoot, trust.trusted, config, env),
        acp,
        checkPlugins({
            dataDir: dataDir(env),
            repoRoot,
            userEnabled: config.enabledPlugins,
            snapshot: readProjectConfig(repoRoot),
            trusted: trust.trusted,
            env,
        }),
    ]);
    const checks = [
        checkNode(process.version),
        ...checkConfigFiles(env, repoRoot),
        ...providers,
        ...tools,
        trust.check,
        ...mcp,
        ...lsp,
        ...plugins,
        acpStdout,
        ...checkPaths(env),
    ];
    const width = Math.max(...checks.map((c) => c.label.length));
    const failed = checks.filter((c) => c.status === "fail").length;
    const warned = checks.filter((c) => c.status === "warn").length;
    const summary =
        failed > 0
            ? `${failed} problem(s), ${warned} warning(s)`
            : warned > 0
              ? `no problems, ${warned} warning(s)`
              : "no problems";
    writeStdout(`${checks.map((c) => formatCheck(c, width)).join("\n")}\n\n${summary}\n`);
    return failed > 0 ? 1 : 0;
}
